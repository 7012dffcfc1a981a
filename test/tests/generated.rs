//! Differential runs of generated programs (`tile_tests::generate`): 30 valid programs across the
//! dialect's elementwise, reduction, copy and shared-memory ops, each run on the CPU reference and
//! on Vulkan (lavapipe), which must agree element by element; where `tile-run --target interp`
//! exists, the interpreter's checksums must agree with the CPU's as well. Longer:
//! `target/debug/tile-fuzz --generate 1000 --seed N`.

mod common;


const SEED: u64 = 11;
const PROGRAMS: u64 = 30;

#[test]
fn generated_programs_agree_across_targets() {
    let bin = common::build_tools(&["tile-run"]);
    let scratch = std::env::temp_dir().join(format!("tile-generated-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch folder");
    let interp = tile_tests::generate::interp_available(&bin, &scratch);
    let failures: Vec<String> = (0..PROGRAMS)
        .filter_map(|index| tile_tests::check_generated(&bin, &scratch, SEED, index, interp).err())
        .collect();
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} of {PROGRAMS} generated programs failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    eprintln!(
        "generated: {PROGRAMS} programs of seed {SEED} agree (CPU, Vulkan{})",
        if interp {
            ", interpreter"
        } else {
            "; no interpreter in this tile-run"
        }
    );
}
