//! A seeded mutation fuzzer for the tools' contract (issue 11, "never crash, never miscompile").
//!
//! The contract, for `tile-opt`, `tile-compile` (every target) and `tile-run`: a run either succeeds
//! or exits with status 1 after an `error:` located in the user's input (`file:line:col`). Never a
//! signal, a panic, an "internal error", an error located only in generated IR, an IR dump, a hang;
//! never a PTX or AMDGCN kernel calling an unresolved function, a manifest naming a host argument
//! that does not exist, "0 kernel(s) written" with status 0, or a Vulkan run that disagrees with the
//! CPU reference on a program whose behaviour is defined.
//!
//! A Vulkan/CPU difference is put to the reference interpreter (`tile-run --target interp`, same
//! inputs): when it stops on undefined behaviour of the mutant (a read of a tile element nothing
//! wrote, a race between blocks or parallel iterations, an access out of bounds, a division by
//! zero, ...) the case is an [`UNDEFINED_INPUT`],
//! counted apart and not a failure: no target can be expected to agree on it. Otherwise it is a
//! failure, with what the interpreter says of the CPU reference's result (see
//! [`disagreement`]), unless the interpreter agrees with the CPU reference and Vulkan differs only
//! at elements the reference holds as NaN or an infinity, which Vulkan need not produce
//! ([`NON_FINITE`], also counted apart).
//!
//! Inputs are the chunks (`// -----`) of every `.mlir` file under `lit/`, `examples/` and
//! `test/programs/`, comments removed, each mutated one to three times ([`mutate`]): token swaps,
//! number changes (0, -1, huge, non-multiples), element type changes, deleted and duplicated lines,
//! memory spaces, shapes and layouts, op names. Case `i` of seed `s` depends only on `(s, i)`, so a
//! failure is reproduced by its seed and index whatever the number of jobs. Each distinct failure
//! (tool, verdict, first offending line without numbers) is kept once and minimized by deleting lines
//! while the same verdict remains ([`minimize`]).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

/// A small deterministic generator (SplitMix64).
pub struct Rng(u64);

impl Rng {
    /// Creates a generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// Returns the next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Returns a generator of its own, derived from this one's state and `salt`, leaving this one
    /// where it is (a choice added to a generator keeps the programs a seed already gave).
    pub fn fork(&self, salt: u64) -> Self {
        Self::new(self.0 ^ salt)
    }

    /// Returns a number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound.max(1) as u64) as usize
    }

    /// Returns one element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One seed input: a chunk of a repository file.
#[derive(Clone, Debug)]
pub struct Seed {
    /// Where it came from (`lit/Dialect/ops.mlir#3`).
    pub origin: String,
    /// The chunk, comments removed.
    pub text: String,
    /// Its host tensors are small enough for the CPU reference to run it in a second or so (under
    /// 2^20 elements each): only these, and of their mutants only those whose tensors stay under the
    /// bound, are given to `tile-run`, whose timeouts then mean a hang.
    pub runnable: bool,
    /// It parses and verifies as it is (see [`mark_valid`]); most mutants start from these.
    pub valid: bool,
}

/// Marks the seeds that `tile-opt` parses and verifies unchanged (lit's invalid inputs do not).
pub fn mark_valid(runner: &Runner, seeds: &mut [Seed]) {
    for seed in seeds.iter_mut() {
        let input = runner.work.join("seed.mlir");
        std::fs::write(&input, &seed.text).expect("the scratch folder is writable");
        seed.valid = Command::new(runner.bin.join("tile-opt"))
            .arg(&input)
            .arg("-o")
            .arg("/dev/null")
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
    }
}

/// Returns true when every memref of the `func.func` lines of `text` has under 2^20 elements.
fn small_tensors(text: &str) -> bool {
    text.lines().filter(|line| line.contains("func.func")).all(|line| {
        line.match_indices("memref<").all(|(start, _)| {
            let dims = line[start + 7..]
                .split(|c: char| !(c.is_ascii_digit() || c == 'x' || c == '?'))
                .next()
                .unwrap_or("");
            dims.split('x')
                .filter(|d| !d.is_empty())
                .map(|d| d.parse::<u64>().unwrap_or(256))
                .fold(1u64, u64::saturating_mul)
                < 1 << 20
        })
    })
}

/// The most loop iterations and blocks a mutant given to `tile-run` may ask for (see [`small_work`]).
const MAX_WORK: u64 = 1 << 24;

/// The most multiply-adds those iterations and blocks may ask for, each doing the function's
/// largest `tile.gemm` (a few seconds of the CPU reference; seed 21212's failing run asked for
/// 2.7e11: 65,536 trips of a 128x128x64 gemm on 4 blocks, past the 60 s limit).
const MAX_MULTIPLY_ADDS: u128 = 1 << 34;

/// The multiply-adds of the `tile.gemm` on `line` (its A tile's elements times its accumulator's
/// columns, whether A is transposed or not), 1 on other lines.
fn gemm_work(line: &str) -> u128 {
    if !line.contains("tile.gemm") {
        return 1;
    }
    let tiles: Vec<Vec<u128>> = line
        .match_indices("memref<")
        .map(|(start, _)| {
            line[start + 7..]
                .split(|c: char| !(c.is_ascii_digit() || c == 'x'))
                .next()
                .unwrap_or("")
                .split('x')
                .filter_map(|size| size.parse::<u128>().ok())
                .collect()
        })
        .collect();
    match &tiles[..] {
        [a, _, c] => a.iter().product::<u128>().saturating_mul(*c.last().unwrap_or(&1)),
        _ => 1,
    }
}

/// Returns true when the product of the constant trip counts of the `tile.pipelined` and `scf.for`
/// loops of each function of `text` and of its kernels' constant grid sizes stays under
/// [`MAX_WORK`], and that product times the function's largest gemm under [`MAX_MULTIPLY_ADDS`]: a number
/// mutated into a loop bound (seed 19191's case: `tile.pipelined` to 2^32, a gemm each iteration,
/// 40 hours on the CPU reference) multiplies the work as a mutated shape does, and makes a run long,
/// not stuck. A bound the kernel computes counts as the largest value its index arithmetic can
/// give (constants, block indices below their grid sizes, `addi`, `subi`, `muli`, `divui`,
/// `ceildivui`, `minui`, `maxui` and their signed forms): seed 28282's case, an attention's key-block
/// count, the `minui` of a count that grows with the query block and a constant mutated to 65,536,
/// on a grid mutated to 65,536 query blocks, asked some 10^15 multiply-adds of the CPU reference and
/// was judged a hang. Bounds that come from elsewhere (function arguments) count as 1: the seeds'
/// are small. Loops are multiplied whether they nest or follow one another, an overestimate the
/// bound allows for (no seed comes near it).
fn small_work(text: &str) -> bool {
    // The largest value of each index the function defines (a constant's value).
    let mut bounds: std::collections::HashMap<String, i128> = std::collections::HashMap::new();
    let mut work: u128 = 1;
    let mut gemm: u128 = 1;
    let small = |work: u128, gemm: u128| work < MAX_WORK as u128 && work.saturating_mul(gemm) < MAX_MULTIPLY_ADDS;
    // A gemm's types may go on over the next lines (seed 4366's case 1074: its accumulator's type
    // on the line after, so its work counted as 1 and 65,536 blocks of it ran past the limit).
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        match lines.last_mut() {
            Some(last) if last.contains("tile.gemm") && last.trim_end().ends_with(',') => last.push_str(line),
            _ => lines.push(line.to_string()),
        }
    }
    for line in lines.iter().map(String::as_str) {
        if line.contains("func.func") {
            // Each function on its own (a file of several runs them one after another).
            if !small(work, gemm) {
                return false;
            }
            (work, gemm, bounds) = (1, 1, Default::default());
            continue;
        }
        gemm = gemm.max(gemm_work(line));
        let bound = |name: Option<&str>| name.and_then(|name| bounds.get(name.trim_end_matches(',')).copied());
        let mut words: Vec<&str> = line.split_whitespace().collect();
        if let [name, "=", op, rest @ ..] = &words[..]
            && op.starts_with("arith.")
        {
            let operands: Vec<Option<i128>> = rest.iter().take(2).map(|word| bound(Some(word))).collect();
            let (a, b) = (operands.first().copied().flatten(), operands.get(1).copied().flatten());
            let largest = match *op {
                "arith.constant" => rest
                    .first()
                    .and_then(|value| value.parse::<i128>().ok())
                    .filter(|_| line.ends_with(": index")),
                "arith.addi" => a.zip(b).map(|(a, b)| a.saturating_add(b)),
                "arith.subi" => a,
                "arith.muli" => a.zip(b).map(|(a, b)| a.saturating_mul(b)),
                // At most the dividend (the divisor's smallest value is not tracked).
                "arith.divui" | "arith.divsi" | "arith.floordivsi" | "arith.ceildivui" | "arith.ceildivsi" => a,
                "arith.minui" | "arith.minsi" => match (a, b) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (one, other) => one.or(other),
                },
                "arith.maxui" | "arith.maxsi" => a.zip(b).map(|(a, b)| a.max(b)),
                _ => None,
            };
            if let Some(largest) = largest {
                bounds.insert(name.to_string(), largest);
            }
            continue;
        }
        // A loop with results: `%r = scf.for ...`.
        if words.get(1) == Some(&"=") {
            words.drain(..2);
        }
        let trip = match words.first() {
            // tile.pipelined %k = %lb to %ub [step %s] stages(n) / scf.for %k = %lb to %ub step %s
            Some(&"tile.pipelined") | Some(&"scf.for") if words.len() > 5 => {
                let lower = bound(words.get(3).copied()).unwrap_or(0);
                let Some(upper) = bound(words.get(5).copied()) else {
                    continue;
                };
                let step = if words.get(6) == Some(&"step") {
                    bound(words.get(7).copied()).filter(|step| *step > 0).unwrap_or(1)
                } else {
                    1
                };
                // Saturating: the bounds saturate (a product of mutated constants).
                upper.saturating_sub(lower).max(0).saturating_add(step - 1) / step
            }
            _ if line.contains("tile.kernel grid(") => {
                let inside = line
                    .split("grid(")
                    .nth(1)
                    .and_then(|rest| rest.split(')').next())
                    .unwrap_or("");
                let sizes: Vec<i128> = inside
                    .split(',')
                    .map(|name| bound(Some(name.trim())).unwrap_or(1).max(0))
                    .collect();
                // The block indices, `(%bx, %by)` after `threads(n)`, are below their grid sizes.
                let indices = line
                    .split("threads(")
                    .nth(1)
                    .and_then(|rest| rest.split_once(") ("))
                    .map(|(_, rest)| rest);
                if let Some(indices) = indices.and_then(|rest| rest.split(')').next()) {
                    for (index, size) in indices.split(',').zip(&sizes) {
                        bounds.insert(index.trim().to_string(), (size - 1).max(0));
                    }
                }
                sizes
                    .iter()
                    .fold(1i128, |product, blocks| product.saturating_mul(*blocks))
            }
            _ => continue,
        };
        work = work.saturating_mul(trip.max(1) as u128);
    }
    small(work, gemm)
}

/// Returns every chunk of every `.mlir` file under `lit/`, `examples/` and `test/programs/` of `root`
/// that holds a `tile.` op, sorted by origin.
pub fn corpus(root: &Path) -> Vec<Seed> {
    let mut files = Vec::new();
    for folder in ["lit", "examples", "test/programs"] {
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() && path.file_name().is_some_and(|name| name != "Output") {
                    stack.push(path);
                } else if path.extension().is_some_and(|ext| ext == "mlir") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    let mut seeds = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let name = file.strip_prefix(root).unwrap_or(&file).display().to_string();
        for (index, chunk) in text.split("\n// -----").enumerate() {
            let body: Vec<&str> = chunk
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect();
            let body = body.join("\n");
            if body.contains("tile.") && body.contains("func.func") {
                let runnable = small_tensors(&body) && small_work(&body);
                seeds.push(Seed {
                    origin: format!("{name}#{index}"),
                    text: body + "\n",
                    runnable,
                    valid: false,
                });
            }
        }
    }
    seeds
}

const TYPES: &[&str] = &[
    "f16", "bf16", "f32", "f8E4M3FN", "f8E5M2", "i8", "i32", "f64", "index", "i1", "i4", "f4E2M1FN",
];
const SPACES: &[&str] = &[
    "#gpu.address_space<workgroup>",
    "#tile.fragment",
    "#gpu.address_space<global>",
    "#gpu.address_space<private>",
    "3",
];
const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "3",
    "7",
    "33",
    "100",
    "1000",
    "65536",
    "4294967296",
    "9223372036854775807",
];
const UNARY: &[&str] = &[
    "math.exp",
    "math.log",
    "math.tanh",
    "math.erf",
    "math.sqrt",
    "math.rsqrt",
    "math.absf",
    "math.sin",
    "math.cos",
    "math.exp2",
    "math.log2",
    "math.log1p",
    "math.expm1",
    "math.cbrt",
    "math.floor",
    "math.ceil",
    "math.round",
    "math.tan",
    "math.atan",
    "math.sinh",
    "math.cosh",
    "math.asin",
    "math.acos",
    "arith.negf",
];
const BINARY: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.remf",
    "math.powf",
    "math.atan2",
    "math.copysign",
];
const REDUCTIONS: &[&str] = &["<sum>", "<max>", "<min>", "<absmax>", "<abssum>"];
const LAYOUTS: &[&str] = &[
    ", strided<[1, 64]>",
    ", strided<[?, 1], offset: ?>",
    ", affine_map<(d0, d1) -> (d1, d0)>",
    ", strided<[128, 1], offset: 4>",
];
/// A function name that would put files named after it (`outside...`) beside the output folder.
const ESCAPING_NAME: &str = "@\"../outside\"";

/// Function names that become kernel symbols and file names: ones no target can take (they must
/// be located errors at the function) and edge cases they can (a leading underscore, one letter, a
/// very long name).
const NAMES: &[&str] = &[
    ESCAPING_NAME,
    "@\"a.b\"",
    "@\"with space\"",
    "@\"9lives\"",
    "@\"\u{fc}nicode\"",
    "@\"\"",
    "@_",
    "@x",
    "@a_name_long_enough_to_reach_the_limits_of_file_names_on_some_systems_when_a_kernel_index_and_a_suffix_are_added_to_it_and_then_again_doubled_a_name_long_enough_to_reach_the_limits_of_file_names_on_some_systems",
];
const OPS: &[&str] = &[
    "tile.parallel",
    "tile.pipelined",
    "tile.copy",
    "tile.gemm",
    "tile.matmul",
    "tile.fill",
    "tile.reduce",
    "tile.scan",
    "tile.print",
    "tile.split_sum",
    "tile.alloc_shared",
    "tile.alloc_fragment",
    "tile.kernel",
    "memref.load",
    "memref.store",
    "memref.atomic_rmw",
];

/// Returns true when a token may start at byte `start` of `text`: after a separator, or after the
/// `x` between the sizes of a shape (`64x64xf32`).
fn starts_token(text: &str, start: usize) -> bool {
    let bytes = text.as_bytes();
    match start.checked_sub(1).map(|i| bytes[i]) {
        None => true,
        Some(b'x') => start >= 2 && (bytes[start - 2].is_ascii_digit() || bytes[start - 2] == b'?'),
        Some(b) => !(b.is_ascii_alphanumeric() || b"_%.#@^".contains(&b)),
    }
}

/// Returns the byte ranges of the lines of `text` that contain `needle` (without their ends).
/// A copy (up to its types) with its `limits` dropped, or given some where it has none: 1 to 3 of
/// the values it names (its offsets mostly; a buffer among them is a type error to report).
fn limits_mutated(copy: &str, rng: &mut Rng) -> String {
    if let Some(at) = copy.find(" limits [") {
        let end = copy[at..].find(']').map_or(copy.len(), |end| at + end + 1);
        return format!("{}{}", &copy[..at], &copy[end..]);
    }
    let values: Vec<&str> = copy
        .split(|c: char| c == '[' || c == ']' || c == ',' || c.is_whitespace())
        .filter(|word| word.starts_with('%'))
        .collect();
    if values.is_empty() {
        return copy.to_string();
    }
    let limits: Vec<&str> = (0..1 + rng.below(3)).map(|_| *rng.pick(&values)).collect();
    let at = copy.find(" dims [").unwrap_or(copy.len());
    format!("{} limits [{}]{}", &copy[..at], limits.join(", "), &copy[at..])
}

fn lines_with(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if body.contains(needle) {
            found.push((start, start + body.len()));
        }
        start += line.len();
    }
    found
}

/// Returns the byte ranges of the integer literals of `text` (sizes in shapes included).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index].is_ascii_digit() && starts_token(text, index) {
            let start = index;
            while index < bytes.len() && bytes[index].is_ascii_digit() {
                index += 1;
            }
            let next = bytes.get(index).copied();
            if next == Some(b'.') || next.is_some_and(|b| b.is_ascii_alphabetic() && b != b'x') {
                continue; // a float literal or part of a name
            }
            found.push((start, index));
        } else {
            index += 1;
        }
    }
    found
}

/// Returns the byte ranges of the occurrences of `needle` in `text` (at word starts).
fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let numeric = needle.bytes().all(|b| b.is_ascii_digit());
    text.match_indices(needle)
        .filter(|(start, _)| {
            let after = text[start + needle.len()..].chars().next();
            let after_ok = if numeric {
                !after.is_some_and(|c| c.is_ascii_digit() || c == '.' || (c.is_ascii_alphabetic() && c != 'x'))
            } else {
                !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                    || !needle.ends_with(|c: char| c.is_ascii_alphanumeric())
            };
            (starts_token(text, *start) || !needle.starts_with(|c: char| c.is_ascii_alphanumeric())) && after_ok
        })
        .map(|(start, _)| (start, start + needle.len()))
        .collect()
}

fn replace_one(
    text: &str,
    ranges: &[(usize, usize)],
    rng: &mut Rng,
    with: impl FnOnce(&str, &mut Rng) -> String,
) -> Option<String> {
    if ranges.is_empty() {
        return None;
    }
    let (start, end) = *rng.pick(ranges);
    let replacement = with(&text[start..end], rng);
    Some(format!("{}{}{}", &text[..start], replacement, &text[end..]))
}

/// Like [`replace_one`], but two times in three every occurrence of the chosen snippet changes the
/// same way (a type or size changed everywhere keeps the program consistent, and so valid more
/// often).
fn replace_some(
    text: &str,
    ranges: &[(usize, usize)],
    rng: &mut Rng,
    with: impl FnOnce(&str, &mut Rng) -> String,
) -> Option<String> {
    if ranges.is_empty() {
        return None;
    }
    if rng.below(3) == 0 {
        return replace_one(text, ranges, rng, with);
    }
    let (start, end) = *rng.pick(ranges);
    let old = &text[start..end];
    let replacement = with(old, rng);
    let mut out = String::new();
    let mut last = 0;
    for (from, to) in occurrences(text, old) {
        out.push_str(&text[last..from]);
        out.push_str(&replacement);
        last = to;
    }
    out.push_str(&text[last..]);
    Some(out)
}

fn replace_any(text: &str, choices: &[&str], rng: &mut Rng) -> Option<String> {
    let ranges: Vec<(usize, usize)> = choices.iter().flat_map(|choice| occurrences(text, choice)).collect();
    replace_some(text, &ranges, rng, |_, rng| rng.pick(choices).to_string())
}

/// Returns the tokens of `text` (identifiers, SSA names, numbers) as byte ranges.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'%' || b == b'.' || b == b'#';
    let mut found = Vec::new();
    let mut index = 0;
    while index < bytes.len() {
        if word(bytes[index]) {
            let start = index;
            while index < bytes.len() && word(bytes[index]) {
                index += 1;
            }
            found.push((start, index));
        } else {
            index += 1;
        }
    }
    found
}

/// Applies one random mutation to `text`; `None` when the chosen kind finds nothing to change.
pub fn mutate_once(text: &str, rng: &mut Rng) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    match rng.below(12) {
        // A number: an edge value, a neighbour or a non-multiple.
        0..=2 => replace_some(text, &numbers(text), rng, |old, rng| {
            let value: i128 = old.parse().unwrap_or(1);
            match rng.below(4) {
                0 => (value + 1).to_string(),
                1 => (value * 3 / 2 + 1).to_string(),
                2 => (value / 2).to_string(),
                _ => rng.pick(NUMBERS).to_string(),
            }
        }),
        // An element type.
        3 => replace_any(text, TYPES, rng),
        // A memory space.
        4 => replace_any(text, SPACES, rng).or_else(|| {
            let ranges: Vec<_> = occurrences(text, "xf16>")
                .into_iter()
                .chain(occurrences(text, "xf32>"))
                .collect();
            replace_some(text, &ranges, rng, |old, rng| {
                format!("{}, {}>", &old[..old.len() - 1], rng.pick(SPACES))
            })
        }),
        // A line deleted or duplicated.
        5 => {
            let index = rng.below(lines.len());
            let mut out: Vec<&str> = lines.clone();
            if rng.below(2) == 0 {
                out.remove(index);
            } else {
                out.insert(index, lines[index]);
            }
            Some(out.join("\n") + "\n")
        }
        // Two tokens swapped.
        6 => {
            let found = tokens(text);
            if found.len() < 2 {
                return None;
            }
            let (mut a, mut b) = (*rng.pick(&found), *rng.pick(&found));
            if a.0 > b.0 {
                std::mem::swap(&mut a, &mut b);
            }
            if a == b || a.1 > b.0 {
                return None;
            }
            Some(format!(
                "{}{}{}{}{}",
                &text[..a.0],
                &text[b.0..b.1],
                &text[a.1..b.0],
                &text[a.0..a.1],
                &text[b.1..]
            ))
        }
        // The dimensions a copy's tile spans (`dims`), named where they were implied, or dropped.
        7 if rng.below(3) == 0 => {
            let copies: Vec<(usize, usize)> = lines_with(text, "tile.copy")
                .into_iter()
                .filter_map(|(start, end)| Some((start, start + text[start..end].rfind(" : ")?)))
                .collect();
            replace_some(text, &copies, rng, |old, rng| {
                if rng.below(2) == 0 {
                    return limits_mutated(old, rng);
                }
                match old.find(" dims [") {
                    Some(at) => old[..at].to_string(),
                    None => {
                        let dims: Vec<String> = (0..1 + rng.below(4)).map(|_| rng.below(5).to_string()).collect();
                        format!("{old} dims [{}]", dims.join(", "))
                    }
                }
            })
        }
        // A shape: a dimension dropped, added, or made dynamic.
        7 => {
            let ranges: Vec<(usize, usize)> = text
                .match_indices("memref<")
                .filter_map(|(start, _)| {
                    let rest = &text[start + 7..];
                    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == 'x' || c == '?'))?;
                    (end > 0).then_some((start + 7, start + 7 + end))
                })
                .collect();
            replace_some(text, &ranges, rng, |old, rng| {
                let mut dims: Vec<&str> = old.split('x').filter(|d| !d.is_empty()).collect();
                match rng.below(3) {
                    0 if dims.len() > 1 => {
                        dims.remove(rng.below(dims.len()));
                    }
                    1 => dims.insert(rng.below(dims.len() + 1), *rng.pick(&["1", "2", "16"])),
                    _ => {
                        let index = rng.below(dims.len().max(1));
                        if index < dims.len() {
                            dims[index] = "?";
                        }
                    }
                }
                dims.iter().map(|d| format!("{d}x")).collect()
            })
        }
        // A layout on a memref type.
        8 => {
            let ranges: Vec<(usize, usize)> = ["xf16>", "xf32>", "xbf16>"]
                .iter()
                .flat_map(|t| occurrences(text, t))
                .collect();
            replace_some(text, &ranges, rng, |old, rng| {
                format!("{}{}>", &old[..old.len() - 1], rng.pick(LAYOUTS))
            })
        }
        // A math or arithmetic op, or a reduction kind.
        9 => replace_any(text, UNARY, rng)
            .filter(|_| rng.below(3) != 0)
            .or_else(|| replace_any(text, BINARY, rng))
            .or_else(|| replace_any(text, REDUCTIONS, rng)),
        // A tile op name, or a function's name (a symbol and a file name to be).
        10 if rng.below(4) == 0 => {
            let names: Vec<(usize, usize)> = text
                .match_indices("func.func @")
                .filter_map(|(start, found)| {
                    let name = start + found.len() - 1;
                    let end = name + text[name..].find('(')?;
                    Some((name, end))
                })
                .collect();
            replace_some(text, &names, rng, |_, rng| rng.pick(NAMES).to_string())
        }
        10 => replace_any(text, OPS, rng),
        // A line moved into a tile.parallel body, or a parallel nested in another.
        _ => {
            let index = rng.below(lines.len());
            let target = rng.below(lines.len());
            let mut out: Vec<&str> = lines.clone();
            let line = out.remove(index);
            out.insert(target.min(out.len()), line);
            Some(out.join("\n") + "\n")
        }
    }
}

/// Applies one mutation to `text` (six times in ten), two (three in ten) or three.
pub fn mutate(text: &str, rng: &mut Rng) -> String {
    let count = match rng.below(10) {
        0..=5 => 1,
        6..=8 => 2,
        _ => 3,
    };
    let mut current = text.to_string();
    let mut applied = 0;
    for _ in 0..count * 8 {
        if applied == count {
            break;
        }
        if let Some(next) = mutate_once(&current, rng)
            && next != current
        {
            current = next;
            applied += 1;
        }
    }
    current
}

/// One tool invocation on a mutant.
#[derive(Clone, Debug, PartialEq)]
pub enum Tool {
    /// `tile-opt FILE PASS -o /dev/null`.
    Opt(&'static str),
    /// `tile-compile FILE --target T -o DIR`.
    Compile(&'static str),
    /// `tile-run FILE --target cpu`.
    RunCpu,
    /// `tile-run FILE --target vulkan --check`.
    RunVulkanCheck,
}

/// The `tile-opt` passes the fuzzer runs (as `no_crash.rs` does).
pub const PASSES: &[&str] = &[
    "--tile-canonicalize",
    "--canonicalize",
    "--convert-tile-to-cpu",
    "--tile-infer-layouts",
    "--tile-plan-pipelines",
    "--pass-pipeline=builtin.module(tile-to-nvvm{chip=sm_90a})",
    "--pass-pipeline=builtin.module(tile-to-nvvm{chip=sm_80})",
    "--pass-pipeline=builtin.module(tile-to-rocdl{chip=gfx942})",
    "--pass-pipeline=builtin.module(tile-to-spirv{chip=spirv})",
    "--pass-pipeline=builtin.module(tile-to-spirv{chip=spirv-coopmat})",
    // Kernels left in the LLVM dialect: the pipeline's last check reads them instead of binaries.
    "--pass-pipeline=builtin.module(tile-to-nvvm{chip=sm_90a serialize=false})",
    "--pass-pipeline=builtin.module(tile-to-rocdl{chip=gfx942 serialize=false})",
    // A target pipeline nested under functions: an error at the function, never an abort.
    "--pass-pipeline=builtin.module(func.func(tile-to-nvvm{chip=sm_90a}))",
];

/// The `tile-compile` targets.
pub const TARGETS: &[&str] = &["sm_90a", "sm_80", "gfx942", "spirv", "spirv-coopmat"];

impl Tool {
    /// Picks a tool at random: compiles and CPU runs most often; runs only for `runnable` seeds.
    pub fn random(rng: &mut Rng, runnable: bool) -> Self {
        match rng.below(if runnable { 10 } else { 6 }) {
            0 | 1 => Tool::Opt(PASSES[rng.below(PASSES.len())]),
            2..=5 => Tool::Compile(TARGETS[rng.below(TARGETS.len())]),
            6..=8 => Tool::RunCpu,
            _ => Tool::RunVulkanCheck,
        }
    }

    /// A short name for reports.
    pub fn describe(&self) -> String {
        match self {
            Tool::Opt(pass) => format!("tile-opt {pass}"),
            Tool::Compile(target) => format!("tile-compile --target {target}"),
            Tool::RunCpu => "tile-run --target cpu".into(),
            Tool::RunVulkanCheck => "tile-run --target vulkan --check".into(),
        }
    }
}

/// What the contract says about one run: `None` when it holds, else the verdict and the line that
/// shows it.
pub type Verdict = Option<(String, String)>;

/// Where the tools are and how long a run may take.
#[derive(Clone, Debug)]
pub struct Runner {
    /// The folder holding `tile-opt`, `tile-compile` and `tile-run`.
    pub bin: PathBuf,
    /// A scratch folder for inputs and outputs.
    pub work: PathBuf,
    /// How much CPU time one run may use before it counts as a hang (and how long it may go without
    /// any; ten times this in wall time makes it inconclusive: [`crate::watch`]).
    pub timeout: Duration,
    /// Runs every mutant through this tool instead of a random one (`tile-fuzz --only vulkan`).
    pub only: Option<Tool>,
}

fn is_located_in(line: &str, input: &str) -> bool {
    let Some(position) = line.find(": error: ") else {
        return false;
    };
    let place = &line[..position];
    let Some(rest) = place.strip_prefix(input) else {
        return false;
    };
    let parts: Vec<&str> = rest.split(':').collect();
    parts.len() == 3
        && parts[0].is_empty()
        && parts[1..]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

fn looks_like_ir(line: &str) -> bool {
    let trimmed = line.trim_start();
    (trimmed.starts_with('%') && trimmed.contains(" = "))
        || [
            "module {",
            "gpu.module",
            "llvm.func",
            "func.func",
            "\"builtin.module\"",
            "spirv.module",
            "builtin.module",
        ]
        .iter()
        .any(|start| trimmed.starts_with(start))
}

/// Judges one finished run against the contract.
pub fn judge(tool: &Tool, input: &str, status: Option<i32>, stdout: &str, stderr: &str, outputs: &Path) -> Verdict {
    let first = |needle: &str| {
        stderr
            .lines()
            .find(|line| line.contains(needle))
            .unwrap_or_default()
            .to_string()
    };
    for needle in [
        "panicked",
        "internal error",
        "Stack dump",
        "PLEASE submit",
        "LLVM ERROR",
        "Assertion",
        "double free",
        "corrupted",
    ] {
        if stderr.contains(needle) {
            return Some((needle.to_lowercase(), first(needle)));
        }
    }
    match status {
        None => {
            return Some(("signal".into(), stderr.lines().last().unwrap_or_default().into()));
        }
        Some(0) | Some(1) => {}
        Some(code) => {
            return Some((
                format!("status {code}"),
                stderr.lines().last().unwrap_or_default().into(),
            ));
        }
    }
    if stderr.contains("see current operation") {
        return Some(("ir dump".into(), first("see current operation")));
    }
    // MLIR echoes the input's line under a parse error: only lines the input does not hold count.
    let source = std::fs::read_to_string(input).unwrap_or_default();
    if let Some(line) = stderr
        .lines()
        .find(|line| looks_like_ir(line) && !source.contains(line.trim()))
    {
        return Some(("ir dump".into(), line.into()));
    }
    for line in stderr
        .lines()
        .filter(|line| line.contains("error:") && !line.starts_with("error: "))
    {
        if !is_located_in(line, input) {
            return Some(("error outside the input".into(), line.into()));
        }
    }
    if status == Some(1) {
        if *tool == Tool::RunVulkanCheck && stdout.contains("MISMATCH") {
            let line = stdout
                .lines()
                .find(|line| line.contains("MISMATCH"))
                .unwrap_or_default();
            return Some((VULKAN_DIFFERS.into(), line.into()));
        }
        if !stderr.lines().any(|line| is_located_in(line, input)) {
            return Some((
                "unlocated error".into(),
                stderr.lines().last().unwrap_or_default().into(),
            ));
        }
        return None;
    }
    if let Tool::Compile(_) = tool {
        if stdout.contains(": 0 kernel(s)") {
            return Some(("no kernel, status 0".into(), stdout.trim().into()));
        }
        for entry in std::fs::read_dir(outputs).into_iter().flatten().flatten() {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            match path.extension().and_then(|e| e.to_str()) {
                Some("ptx") => {
                    // vprintf is CUDA's device printf (`tile.print`), which the driver links.
                    let unresolved = |l: &&str| l.contains(".extern .func") && !l.trim_end().ends_with(" vprintf");
                    if let Some(line) = text.lines().find(unresolved) {
                        return Some(("ptx calls an unresolved function".into(), line.trim().into()));
                    }
                }
                Some("s") => {
                    // A call is s_swappc_b64 (and a callee returns by s_setpc_b64); an s_setpc_b64
                    // a few lines after s_getpc_b64 is a long branch (branch relaxation in a large
                    // kernel), not a call.
                    let lines: Vec<&str> = text.lines().collect();
                    let long_branch = |at: usize| {
                        lines[at.saturating_sub(4)..at]
                            .iter()
                            .any(|l| l.contains("s_getpc_b64"))
                    };
                    if let Some(line) = lines.iter().enumerate().find_map(|(at, l)| {
                        (l.contains("s_swappc_b64") || (l.contains("s_setpc_b64") && !long_branch(at))).then_some(*l)
                    }) {
                        return Some(("amdgcn calls a function".into(), line.trim().into()));
                    }
                }
                Some("json") => {
                    // A binding names a host argument, or holds an integer the launcher computes
                    // (`value`: SPIR-V's sizes and scalars).
                    let unbound = serde_json::from_str::<serde_json::Value>(&text)
                        .ok()
                        .and_then(|manifest| {
                            manifest["bindings"].as_array()?.iter().find_map(|binding| {
                                (binding["host_argument"].as_i64()? < 0 && binding.get("value").is_none())
                                    .then(|| binding.to_string())
                            })
                        });
                    if let Some(binding) = unbound {
                        return Some(("manifest names no host argument".into(), binding));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// Runs `tool` on `text` (written to `name` in the scratch folder) and judges the run.
pub fn run_case(runner: &Runner, tool: &Tool, text: &str, name: &str) -> Verdict {
    let input = runner.work.join(format!("{name}.mlir"));
    let outputs = runner.work.join(format!("{name}.out"));
    let _ = std::fs::remove_dir_all(&outputs);
    std::fs::write(&input, text).expect("the scratch folder is writable");
    let input_text = input.display().to_string();
    let mut command = match tool {
        Tool::Opt(pass) => {
            let mut command = Command::new(runner.bin.join("tile-opt"));
            command.arg(&input).arg(pass).arg("-o").arg("/dev/null");
            command
        }
        Tool::Compile(target) => {
            let mut command = Command::new(runner.bin.join("tile-compile"));
            command.arg(&input).args(["--target", target, "-o"]).arg(&outputs);
            command
        }
        Tool::RunCpu => {
            let mut command = Command::new(runner.bin.join("tile-run"));
            command.arg(&input).args(["--target", "cpu"]);
            command
        }
        Tool::RunVulkanCheck => {
            let mut command = Command::new(runner.bin.join("tile-run"));
            command.arg(&input).args(["--target", "vulkan", "--check"]);
            command
        }
    };
    let stdout_path = runner.work.join(format!("{name}.stdout"));
    let stderr_path = runner.work.join(format!("{name}.stderr"));
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).expect("scratch"))
        .stderr(std::fs::File::create(&stderr_path).expect("scratch"))
        .env("RUST_BACKTRACE", "0");
    let mut child = command.spawn().expect("the tools are built");
    let ended = crate::watch::wait(&mut child, runner.timeout);
    let stdout = std::fs::read_to_string(&stdout_path).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&std::fs::read(&stderr_path).unwrap_or_default()).into_owned();
    let status = match ended {
        crate::watch::Ended::Exited(status) => status,
        crate::watch::Ended::Hang(why) => return Some(("timeout".into(), why)),
        crate::watch::Ended::Inconclusive(why) => return Some((INCONCLUSIVE.into(), why)),
    };
    use std::os::unix::process::ExitStatusExt;
    if std::env::var_os("TILE_FUZZ_VERBOSE").is_some() {
        let first = stderr.lines().find(|line| line.contains("error")).unwrap_or("ok");
        eprintln!("[{}] {}", tool.describe(), first.replace(&input_text, "IN"));
    }
    if status.code() == Some(0) {
        SUCCEEDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    // A function named to climb out of the output folder (one of `NAMES`) must not have.
    if matches!(tool, Tool::Compile(_)) && text.contains(ESCAPING_NAME) {
        let escaped = std::fs::read_dir(&runner.work).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|entry| entry.file_name().to_string_lossy().starts_with("outside"))
        });
        if escaped {
            return Some((
                "wrote outside its output folder".into(),
                format!("a file named after {ESCAPING_NAME} next to {}", outputs.display()),
            ));
        }
    }
    let verdict = match status.code() {
        Some(code) => judge(tool, &input_text, Some(code), &stdout, &stderr, &outputs),
        None => Some((
            format!("signal {}", status.signal().unwrap_or(0)),
            stderr.lines().last().unwrap_or_default().into(),
        )),
    };
    let _ = std::fs::remove_dir_all(&outputs);
    match verdict {
        Some((kind, line)) if kind == VULKAN_DIFFERS => Some(disagreement(runner, &input, line, &stdout)),
        verdict => verdict,
    }
}

/// The verdict of a run killed by the wall-clock backstop while under its CPU-time limit
/// ([`crate::watch`]): the machine was loaded, which says nothing of the tool; not a failure.
pub const INCONCLUSIVE: &str = "inconclusive (machine loaded)";

/// The verdict of a Vulkan run that disagrees with the CPU reference.
pub const VULKAN_DIFFERS: &str = "vulkan differs from cpu";

/// The verdict of a mutant on which targets disagree and whose behaviour the interpreter finds
/// undefined: not a failure.
pub const UNDEFINED_INPUT: &str = "undefined input";

/// The verdict of a mutant whose behaviour is defined, which the interpreter and the CPU reference
/// agree on, and on which Vulkan differs only at elements the CPU reference holds as NaN or an
/// infinity: Vulkan need not produce those (see [`only_non_finite`]); not a failure.
pub const NON_FINITE: &str = "vulkan differs only where the reference is nan or infinite";

/// Returns true when every `MISMATCH` line of `tile-run --check`'s `stdout` says that all of its
/// differing elements are NaN or infinite in the reference ("N elements differ, N of them where
/// ... holds NaN or an infinity"). Without the SignedZeroInfNanPreserve execution mode a Vulkan
/// implementation may ignore NaN and infinities ("instructions that operate on a NaN may not
/// result in a NaN"), and lavapipe does (it folds `0 * NaN` to 0, even with the mode declared):
/// lit `Targets/spirv-nan-inf-preserve.mlir`.
pub fn only_non_finite(stdout: &str) -> bool {
    let mut any = false;
    for line in stdout.lines().filter(|line| line.contains("MISMATCH")) {
        let counts = line.rsplit_once("): ").map(|(_, counts)| counts).unwrap_or("");
        let numbers: Vec<&str> = counts
            .split(|c: char| !c.is_ascii_digit())
            .filter(|word| !word.is_empty())
            .collect();
        let all = counts.contains(" elements differ, ")
            && counts.ends_with(" holds NaN or an infinity")
            && numbers.len() >= 2
            && numbers[0] == numbers[1];
        if !all {
            return false;
        }
        any = true;
    }
    any
}

/// What the last line of `tile-run --target interp` says when the program's behaviour is undefined.
const UNDEFINED_MARK: &str = "the program's behaviour is undefined";

/// Runs `tile-run --target interp` on `input` with `args`; returns its exit code (`None` past the
/// time limit, or inconclusive), stdout and stderr.
fn interpret(runner: &Runner, input: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let output = |suffix: &str| input.with_extension(suffix);
    let (stdout_path, stderr_path) = (output("interp.stdout"), output("interp.stderr"));
    let mut child = Command::new(runner.bin.join("tile-run"))
        .arg(input)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).expect("scratch"))
        .stderr(std::fs::File::create(&stderr_path).expect("scratch"))
        .env("RUST_BACKTRACE", "0")
        .spawn()
        .expect("the tools are built");
    let code = match crate::watch::wait(&mut child, runner.timeout) {
        crate::watch::Ended::Exited(status) => status.code().or(Some(-1)),
        _ => None,
    };
    let read = |path: &Path| String::from_utf8_lossy(&std::fs::read(path).unwrap_or_default()).into_owned();
    (code, read(&stdout_path), read(&stderr_path))
}

/// Judges a Vulkan/CPU difference on `input` (`line` shows it) with the reference interpreter, on
/// the same seeded inputs: undefined behaviour of the program makes it an [`UNDEFINED_INPUT`] (with
/// the interpreter's located error); otherwise it stays a [`VULKAN_DIFFERS`] failure, its line
/// saying which side the interpreter takes (the CPU reference checked against it), unless the
/// interpreter agrees with the CPU reference and Vulkan's `stdout` differs only where the reference
/// is NaN or infinite ([`NON_FINITE`]).
pub fn disagreement(runner: &Runner, input: &Path, line: String, stdout: &str) -> (String, String) {
    let (code, _, stderr) = interpret(runner, input, &["--target", "interp"]);
    if code == Some(1) && stderr.contains(UNDEFINED_MARK) {
        let error = stderr
            .lines()
            .find(|line| line.contains(": error: "))
            .unwrap_or(UNDEFINED_MARK);
        // The scratch path means nothing later: name the mutant instead (its lines as run).
        let error = error.replace(&input.display().to_string(), "mutant");
        return (UNDEFINED_INPUT.into(), error);
    }
    let side = match code {
        Some(0) => {
            let (code, cpu_stdout, _) = interpret(runner, input, &["--target", "cpu", "--check"]);
            match code {
                Some(0) if only_non_finite(stdout) => {
                    return (NON_FINITE.into(), line);
                }
                Some(0) => "the interpreter agrees with the CPU reference",
                Some(1) if cpu_stdout.contains("MISMATCH") => "the interpreter differs from the CPU reference too",
                _ => "the CPU reference against the interpreter did not finish",
            }
        }
        None => "the interpreter ran past the time limit",
        _ => "the interpreter cannot run it",
    };
    (VULKAN_DIFFERS.into(), format!("{line} ({side})"))
}

/// How many runs ended with status 0 (the rest of those that kept the contract were refused with a
/// located error): a fuzzer whose mutants never pass the verifier tests little.
pub static SUCCEEDED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// One failure of the contract.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The case index.
    pub case: u64,
    /// The seed input it mutated.
    pub origin: String,
    /// The tool run.
    pub tool: Tool,
    /// What went wrong and the line that shows it.
    pub verdict: (String, String),
    /// The mutant.
    pub text: String,
}

impl Failure {
    /// Returns what identifies this failure among others: tool, verdict, first line without numbers
    /// and paths.
    pub fn signature(&self) -> String {
        let tool = match &self.tool {
            Tool::Opt(_) => "tile-opt".to_string(),
            other => other.describe(),
        };
        let line: String = self
            .verdict
            .1
            .split_whitespace()
            .filter(|word| !word.contains('/'))
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .take(100)
            .collect();
        format!("{tool} | {} | {line}", self.verdict.0)
    }
}

/// Returns the mutant and the tool of case `case` of `seed`.
pub fn case(seeds: &[Seed], seed: u64, case: u64) -> (usize, String, Tool) {
    let mut rng = Rng::new(seed.wrapping_mul(0x1000_0000_01B3) ^ case.wrapping_mul(0x9E37_79B9));
    // Mostly valid seeds (a mutant of an invalid one rarely gets past the parser).
    let valid: Vec<usize> = (0..seeds.len()).filter(|index| seeds[*index].valid).collect();
    let index = if !valid.is_empty() && rng.below(10) < 8 {
        *rng.pick(&valid)
    } else {
        rng.below(seeds.len())
    };
    let text = mutate(&seeds[index].text, &mut rng);
    // The size bound holds for the mutant, not only its seed: a mutated shape (2 x 1000 heads of
    // 1000 tokens) or loop bound (2^32 iterations) makes a run long by its work, not stuck, and is
    // for the compilers only.
    let tool = Tool::random(
        &mut rng,
        seeds[index].runnable && small_tensors(&text) && small_work(&text),
    );
    (index, text, tool)
}

/// Runs cases `0..count` of `seed` on `jobs` threads; returns the failures in case order.
pub fn fuzz(
    runner: &Runner,
    seeds: &[Seed],
    seed: u64,
    count: u64,
    jobs: usize,
    mut progress: impl FnMut(u64) + Send,
) -> Vec<Failure> {
    use std::sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    };
    let next = AtomicU64::new(0);
    let failures = Mutex::new(Vec::new());
    let done = Mutex::new((0u64, &mut progress));
    std::thread::scope(|scope| {
        for job in 0..jobs.max(1) {
            let (next, failures, done) = (&next, &failures, &done);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= count {
                        break;
                    }
                    let (origin, text, tool) = case(seeds, seed, index);
                    let tool = runner.only.clone().unwrap_or(tool);
                    if let Some(verdict) = run_case(runner, &tool, &text, &format!("job{job}")) {
                        failures.lock().expect("lock").push(Failure {
                            case: index,
                            origin: seeds[origin].origin.clone(),
                            tool,
                            verdict,
                            text,
                        });
                    }
                    let mut done = done.lock().expect("lock");
                    done.0 += 1;
                    let finished = done.0;
                    (done.1)(finished);
                }
            });
        }
    });
    let mut failures = failures.into_inner().expect("lock");
    failures.sort_by_key(|failure| failure.case);
    failures
}

impl Failure {
    /// Returns true for a mutant on which Vulkan and the CPU reference disagree and whose behaviour
    /// the interpreter finds undefined (it reads a tile element nothing wrote, say: both targets
    /// then read whatever memory held): counted apart, not a broken contract.
    pub fn is_undefined_input(&self) -> bool {
        self.verdict.0 == UNDEFINED_INPUT
    }

    /// Returns true for a Vulkan difference only at elements the reference holds as NaN or an
    /// infinity, on a defined program the interpreter and the CPU reference agree on
    /// ([`NON_FINITE`]): counted apart, not a broken contract.
    pub fn is_non_finite(&self) -> bool {
        self.verdict.0 == NON_FINITE
    }

    /// Returns true for a run killed by the wall-clock backstop under its CPU limit
    /// ([`INCONCLUSIVE`]).
    pub fn is_inconclusive(&self) -> bool {
        self.verdict.0 == INCONCLUSIVE
    }

    /// Returns true for what the fuzzer counts apart rather than as a failure: an undefined input,
    /// a Vulkan difference only at NaN and infinities, or an inconclusive run.
    pub fn is_excused(&self) -> bool {
        self.is_undefined_input() || self.is_non_finite() || self.is_inconclusive()
    }

    /// Returns the kind of undefined behaviour of an [`UNDEFINED_INPUT`] (`undefined read`,
    /// `race`, `out of bounds`, or `other`), from the interpreter's message.
    pub fn undefined_kind(&self) -> &'static str {
        if self.verdict.1.contains("reads undefined element") {
            "undefined read"
        } else if self.verdict.1.contains(" op races: ") {
            "race"
        } else if self.verdict.1.contains("out of bounds") {
            "out of bounds"
        } else {
            "other"
        }
    }
}

/// Keeps the first failure of each signature.
pub fn distinct(failures: &[Failure]) -> Vec<Failure> {
    let mut seen = std::collections::HashSet::new();
    failures
        .iter()
        .filter(|failure| seen.insert(failure.signature()))
        .cloned()
        .collect()
}

/// Deletes lines of `failure`'s mutant while the same verdict kind remains; at most `budget` runs.
pub fn minimize(runner: &Runner, failure: &Failure, budget: usize) -> String {
    let mut lines: Vec<String> = failure.text.lines().map(str::to_string).collect();
    let mut runs = 0;
    let mut chunk = (lines.len() / 2).max(1);
    while chunk >= 1 && runs < budget {
        let mut start = 0;
        let mut changed = false;
        while start < lines.len() && runs < budget {
            let mut candidate = lines.clone();
            let end = (start + chunk).min(candidate.len());
            candidate.drain(start..end);
            runs += 1;
            let verdict = run_case(runner, &failure.tool, &(candidate.join("\n") + "\n"), "minimize");
            if verdict.as_ref().is_some_and(|(kind, _)| *kind == failure.verdict.0) {
                lines = candidate;
                changed = true;
            } else {
                start += chunk;
            }
        }
        if !changed {
            if chunk == 1 {
                break;
            }
            chunk /= 2;
        }
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_skip_names_and_floats() {
        let text = "%c16 = arith.constant 16 : index, memref<8x64xf32>, 0.5";
        let found: Vec<&str> = numbers(text).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["16", "8", "64"]);
    }

    #[test]
    fn function_names_are_mutated() {
        let text = "func.func @f(%a: memref<8x64xf32>) {\n  return\n}\n";
        let renamed: Vec<String> = (0..4000)
            .filter_map(|seed| mutate_once(text, &mut Rng::new(seed)))
            .filter(|mutant| !mutant.contains("func.func @f("))
            .collect();
        for name in NAMES {
            let as_function = format!("func.func {name}(");
            assert!(
                renamed.iter().any(|mutant| mutant.contains(&as_function)),
                "{name} never came"
            );
        }
    }

    #[test]
    fn cases_are_reproducible() {
        let seeds = vec![Seed {
            origin: "x".into(),
            text: "func.func @f(%a: memref<8x64xf32>) {\n  tile.kernel\n}\n".into(),
            runnable: true,
            valid: true,
        }];
        assert_eq!(case(&seeds, 7, 3).1, case(&seeds, 7, 3).1);
    }

    /// A mutant whose host tensors outgrow the seed's size bound (class 1 of seed 14141: 2 x 1000
    /// heads) is given to the compilers only, never to `tile-run`.
    #[test]
    fn mutants_past_the_size_bound_are_not_run() {
        let seeds = vec![Seed {
            origin: "x".into(),
            text: "func.func @f(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {\n  tile.kernel\n}\n".into(),
            runnable: true,
            valid: true,
        }];
        let (mut large, mut run) = (0, 0);
        for index in 0..400 {
            let (_, text, tool) = case(&seeds, 1, index);
            let runs = matches!(tool, Tool::RunCpu | Tool::RunVulkanCheck);
            if !small_tensors(&text) {
                large += 1;
                assert!(!runs, "case {index} runs {text}");
            }
            run += usize::from(runs);
        }
        assert!(large > 0 && run > 0, "{large} large mutants, {run} runs");
    }

    /// Seed 19191's failing run (case 35214, from `lit/Conversions/tile-to-spirv-coopmat-invalid.mlir`
    /// `@bias`): its K loop's bound mutated from 3 to 2^32, a 64x64x16 gemm each iteration on the
    /// CPU reference (about 40 hours), judged a hang. Such mutants are for the compilers only.
    #[test]
    fn mutants_past_the_work_bound_are_not_run() {
        let kernel = |upper: &str| {
            format!(
                "func.func @bias(%A: memref<128x48xf16>) {{\n  %c0 = arith.constant 0 : index\n  \
                 %c2 = arith.constant 2 : index\n  %c3 = arith.constant {upper} : index\n  \
                 tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {{\n    \
                 tile.pipelined %k = %c0 to %c3 stages(2) {{\n    }}\n  }}\n  return\n}}\n"
            )
        };
        assert!(small_work(&kernel("3")));
        assert!(small_work(&kernel("-1")));
        assert!(!small_work(&kernel("4294967296")));
        assert!(!small_work(&kernel("9223372036854775807")));
        // Loops multiply, a step divides, and so do the blocks of a grid.
        let nested = "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n\
                      %n = arith.constant 1024 : index\n%s = arith.constant 2 : index\n\
                      tile.kernel grid(%n) threads(32) (%b) {\n\
                      scf.for %i = %c0 to %n step %c1 {\n\
                      tile.pipelined %k = %c0 to %n step %s stages(2) {\n";
        assert!(!small_work(nested));
        assert!(small_work(&nested.replace("grid(%n)", "grid(%c1)")));
        assert!(small_work("tile.pipelined %k = %c0 to %arg3 stages(2) {\n"));
    }

    /// Seed 4366's case 1074 (`test/programs/gemm_split_k_relu.mlir`, its grid mutated to 65,536
    /// blocks): the gemm's types go on over the next line, and its work counts all the same.
    #[test]
    fn a_gemm_whose_types_go_on_over_lines_counts_its_work() {
        let kernel = |blocks: &str| {
            format!(
                "%c0 = arith.constant 0 : index\n%c32 = arith.constant 32 : index\n\
                 %g = arith.constant {blocks} : index\n\
                 tile.kernel grid(%g) threads(256) (%bx) {{\n\
                 tile.pipelined %k = %c0 to %c32 stages(4) {{\n\
                 tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,\n\
                 \x20   memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>\n"
            )
        };
        assert!(small_work(&kernel("4")));
        assert!(!small_work(&kernel("65536")));
    }

    /// Seed 28282's failing run (`test/programs/attention_4d_causal.mlir`): the grid's query blocks
    /// and the key-block count's constant both mutated to 65,536, so that the key loop, whose bound
    /// the kernel computes, runs up to 65,536 trips on each of 131,072 blocks. A bound the kernel
    /// computes counts at the largest value its arithmetic gives.
    #[test]
    fn loop_bounds_the_kernel_computes_count_at_their_largest() {
        let kernel = |blocks: &str| {
            format!(
                "func.func @attention(%Q: memref<1x2x100x49xf16>) {{\n  %c0 = arith.constant 0 : index\n  \
                 %c1 = arith.constant 1 : index\n  %cnq = arith.constant {blocks} : index\n  \
                 %c2 = arith.constant 2 : index\n  %c49 = arith.constant 49 : index\n  \
                 tile.kernel grid(%cnq, %c2, %c1) threads(64) (%bq, %bh, %bb) {{\n    \
                 %diag = arith.divui %bq, %c49 : index\n    %kblocks = arith.minui %diag, %cnq : index\n    \
                 scf.for %kb = %c1 to %kblocks step %c1 {{\n      \
                 tile.gemm %Qs, %Ks, %S {{transpose_b}} : memref<49x49xf16, #gpu.address_space<workgroup>>, memref<49x49xf16, #gpu.address_space<workgroup>>, memref<49x49xf32, #tile.fragment>\n    \
                 }}\n  }}\n  return\n}}\n"
            )
        };
        assert!(small_work(&kernel("2")));
        assert!(!small_work(&kernel("65536")));
        // A product of mutated constants saturates, and a negative lower bound does not overflow it.
        let saturated = "%lo = arith.constant -5 : index\n%one = arith.constant 1 : index\n\
                         %n = arith.constant 170141183460469231731687303715884105727 : index\n\
                         %m = arith.muli %n, %n : index\nscf.for %i = %lo to %m step %one {\n";
        assert!(!small_work(saturated));
    }

    /// Seed 21212's failing run (the `@gemm_bias` of `lit/Passes/tile-expand-pipelines.mlir` and
    /// `lit/Conversions/pipeline-to-nvgpu.mlir`): 65,536 trips of a 128x128x64 gemm on 4 blocks, under the trip bound,
    /// 2.7e11 multiply-adds on the CPU reference. The gemm's work counts.
    #[test]
    fn mutants_past_the_gemm_work_bound_are_not_run() {
        let kernel = |upper: &str| {
            format!(
                "func.func @gemm_bias(%A: memref<256x256xf16>) {{\n  %c0 = arith.constant 0 : index\n  \
                 %c2 = arith.constant 2 : index\n  %c4 = arith.constant {upper} : index\n  \
                 tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {{\n    \
                 tile.pipelined %k = %c0 to %c4 stages(3) {{\n      \
                 tile.gemm %As, %Bs, %Acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>\n    \
                 }}\n  }}\n  return\n}}\n"
            )
        };
        assert_eq!(
            gemm_work(
                "tile.gemm %As, %Bs, %Acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>"
            ),
            128 * 64 * 128
        );
        assert!(small_work(&kernel("4")));
        assert!(small_work(&kernel("1000")));
        assert!(!small_work(&kernel("65536")));
    }

    /// No seed of the corpus is past the work bound (only mutants are).
    #[test]
    fn seeds_are_within_the_work_bound() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("repository");
        let seeds = corpus(root);
        assert!(seeds.len() > 100);
        let past: Vec<&str> = seeds
            .iter()
            .filter(|seed| small_tensors(&seed.text) && !small_work(&seed.text))
            // The verifier's grid rule: a kernel of 2^32 blocks, an invalid seed.
            .filter(|seed| !seed.text.contains("@grid_too_large"))
            .map(|seed| seed.origin.as_str())
            .collect();
        assert!(past.is_empty(), "{past:?}");
    }

    #[test]
    fn differences_only_at_nan_and_infinities_are_recognized() {
        let line = |differ: usize, non_finite: usize| {
            format!(
                "  check %arg1: MISMATCH, worst relative error inf (tolerance 1e-4): {differ} elements differ, {non_finite} of them where cpu holds NaN or an infinity\n"
            )
        };
        assert!(only_non_finite(&line(8, 8)));
        assert!(!only_non_finite(&line(8, 7)));
        assert!(!only_non_finite(&(line(8, 8) + &line(3, 2))));
        assert!(!only_non_finite("  check %arg1: match, worst relative error 0\n"));
        assert!(!only_non_finite(
            "  check %arg1: MISMATCH, worst relative error inf (tolerance 1e-4)\n"
        ));
    }

    #[test]
    fn errors_must_be_located_in_the_input() {
        assert!(is_located_in(
            "/tmp/a.mlir:3:5: error: 'tile.x' op expects",
            "/tmp/a.mlir"
        ));
        assert!(!is_located_in("loc(unknown): error: x", "/tmp/a.mlir"));
        assert!(!is_located_in("/tmp/a.mlir: error: x", "/tmp/a.mlir"));
    }
}
