//! One SPIR-V kernel and how to launch it, as its launch manifest describes it.

use tile_manifest::{Expr, HostArguments, Manifest, Strategy};

/// A storage buffer the kernel binds: a host argument's tensor (its shape and element type), or
/// an integer the launcher computes from the host arguments.
#[derive(Clone, Debug)]
pub struct Binding {
    /// The host function's argument bound here (none for an integer the launcher computes).
    pub host_argument: Option<usize>,
    /// Sizes, row-major; `None` where the size is dynamic.
    pub shape: Vec<Option<usize>>,
    /// Element type, as MLIR writes it (`f16`, `f32`, `i32`, ...).
    pub element: String,
    /// Whether the kernel writes it.
    pub written: bool,
    /// The integer (a size of a host tensor, a scalar the host computes) the launcher writes
    /// into this binding's 4-byte buffer.
    pub value: Option<Expr>,
}

/// One SPIR-V kernel and how to launch it.
#[derive(Clone, Debug)]
pub struct SpirvKernel {
    /// Entry point.
    pub entry: String,
    /// The host function that launches it.
    pub function: String,
    /// The SPIR-V binary.
    pub spirv: Vec<u32>,
    /// Workgroups per dimension (zeros until [`SpirvKernel::with_grid`] computes a grid the host
    /// computes at run time).
    pub workgroups: [u32; 3],
    /// The grid as the manifest gives it: numbers, or integer arithmetic over the host arguments'
    /// sizes.
    pub grid: Vec<Expr>,
    /// The condition the host function launches it under, if any (its manifest's `when`).
    pub when: Option<Expr>,
    /// The buffers, in binding order.
    pub bindings: Vec<Binding>,
    /// Workgroup memory it needs.
    pub shared_bytes: u32,
    /// The subgroup width its code assumes, if any.
    pub subgroup_size: Option<u32>,
    /// Whether it uses KHR cooperative matrices.
    pub cooperative_matrix: bool,
}

impl SpirvKernel {
    /// Reads the kernel from its launch manifest (JSON, as `tile-compile` writes it) and binary.
    pub fn from_manifest(manifest: &str, spirv: Vec<u32>) -> Result<Self, String> {
        let manifest = Manifest::from_json(manifest).map_err(|error| format!("manifest: {error}"))?;
        Self::from_typed(&manifest, spirv)
    }

    /// Reads the kernel from its typed launch manifest and binary.
    pub fn from_typed(manifest: &Manifest, spirv: Vec<u32>) -> Result<Self, String> {
        let entry = manifest.entry.clone();
        let mut workgroups = [1u32; 3];
        for (slot, size) in workgroups.iter_mut().zip(&manifest.grid) {
            *slot = size.as_const().map_or(0, |size| size as u32);
        }
        let bindings = manifest
            .bindings
            .as_ref()
            .ok_or("manifest without bindings")?
            .iter()
            .map(|binding| Binding {
                host_argument: usize::try_from(binding.host_argument).ok(),
                shape: binding
                    .shape
                    .iter()
                    .map(|size| size.map(|size| size as usize))
                    .collect(),
                element: binding.element.clone(),
                written: binding.written,
                value: binding.value.clone(),
            })
            .collect();
        // The register strategy's gemms may run on cooperative matrices too (spirv-coopmat): the
        // binary says so, and their code is written for 32-wide subgroups.
        let cooperative_matrix =
            manifest.strategy == Some(Strategy::CooperativeMatrix) || declares_cooperative_matrix(&spirv);
        Ok(SpirvKernel {
            function: manifest.host_function.clone().unwrap_or_default(),
            spirv,
            workgroups,
            grid: manifest.grid.clone(),
            when: manifest.when.clone(),
            bindings,
            shared_bytes: manifest.shared_memory_bytes() as u32,
            subgroup_size: manifest.subgroup_size.or(cooperative_matrix.then_some(32)),
            cooperative_matrix,
            entry,
        })
    }
}

impl SpirvKernel {
    /// This kernel with its grid computed from the host arguments (`host`: their sizes and
    /// scalars); no workgroups where the condition it is launched under does not hold.
    pub fn with_grid<H: HostArguments + ?Sized>(&self, host: &H) -> Result<SpirvKernel, String> {
        let mut kernel = self.clone();
        if let Some(condition) = &self.when
            && condition
                .evaluate(host)
                .map_err(|error| format!("{}: {error}", self.entry))?
                == 0
        {
            kernel.workgroups = [0; 3];
            return Ok(kernel);
        }
        let mut workgroups = [1u32; 3];
        for (slot, size) in workgroups.iter_mut().zip(&self.grid) {
            let size = size
                .evaluate(host)
                .map_err(|error| format!("{}: {error}", self.entry))?;
            *slot = u32::try_from(size)
                .map_err(|_| format!("{}: a grid of {size} workgroups along a dimension", self.entry))?;
        }
        kernel.workgroups = workgroups;
        Ok(kernel)
    }

    /// The contents of each binding that holds an integer the launcher computes (by binding; none
    /// for a host argument's): its value from `host`, as the kernel's 32-bit integer.
    pub fn values<H: HostArguments + ?Sized>(&self, host: &H) -> Result<Vec<Option<Vec<u8>>>, String> {
        self.bindings
            .iter()
            .map(|binding| {
                binding
                    .value
                    .as_ref()
                    .map(|value| {
                        let value = value
                            .evaluate(host)
                            .map_err(|error| format!("{}: {error}", self.entry))?;
                        i32::try_from(value)
                            .map(|value| value.to_le_bytes().to_vec())
                            .map_err(|_| format!("{}: {value} does not fit the kernel's 32-bit integers", self.entry))
                    })
                    .transpose()
            })
            .collect()
    }
}

/// Whether a SPIR-V module's words declare `OpCapability CooperativeMatrixKHR`.
pub fn declares_cooperative_matrix(words: &[u32]) -> bool {
    const OP_CAPABILITY: u32 = 17;
    const COOPERATIVE_MATRIX_KHR: u32 = 6022;
    // Instructions follow the 5-word header: the word count in the high half of each first word.
    let mut at = 5;
    while let Some(&first) = words.get(at) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        if opcode == OP_CAPABILITY && words.get(at + 1) == Some(&COOPERATIVE_MATRIX_KHR) {
            return true;
        }
        if count == 0 {
            break;
        }
        at += count;
    }
    false
}

/// Reads a SPIR-V binary's words (little-endian).
pub fn spirv_words(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err("not a SPIR-V binary (length)".into());
    }
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        .collect();
    if words[0] != 0x0723_0203 {
        return Err("not a SPIR-V binary (magic number)".into());
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFEST: &str = r#"{"version": 1, "compiler": "0.1.0", "entry": "k_0_kernel", "host_function": "k", "target": "spirv-coopmat", "strategy": "cooperative-matrix", "workgroup_size": [128, 1, 1], "subgroup_size": 32, "grid": [4, 2, 1], "shared_bytes": 9472, "bindings": [{"set": 0, "binding": 0, "host_argument": 1, "shape": [128, 48], "element": "f16", "written": false}, {"set": 0, "binding": 1, "host_argument": 0, "shape": [128, 96], "element": "f32", "written": true}]}"#;

    #[test]
    fn a_manifest_gives_the_launch() {
        let kernel = SpirvKernel::from_manifest(MANIFEST, vec![0x0723_0203]).unwrap();
        assert_eq!(kernel.entry, "k_0_kernel");
        assert_eq!(kernel.function, "k");
        assert_eq!(kernel.workgroups, [4, 2, 1]);
        assert_eq!(kernel.shared_bytes, 9472);
        assert_eq!(kernel.subgroup_size, Some(32));
        assert!(kernel.cooperative_matrix);
        assert_eq!(kernel.bindings.len(), 2);
        assert_eq!(kernel.bindings[0].host_argument, Some(1));
        assert_eq!(kernel.bindings[1].shape, vec![Some(128), Some(96)]);
        assert_eq!(kernel.bindings[1].element, "f32");
        assert!(kernel.bindings[1].written && !kernel.bindings[0].written);
    }

    /// Host arguments of the given shapes.
    struct Shapes(Vec<Vec<i64>>);

    impl HostArguments for Shapes {
        fn size(&self, argument: usize, dim: usize) -> Option<i64> {
            self.0.get(argument)?.get(dim).copied()
        }
    }

    #[test]
    fn a_host_computed_grid_and_values_come_from_the_host_arguments() {
        let manifest = MANIFEST
            .replace("\"grid\": [4, 2, 1]", "\"grid\": [{\"op\": \"arith.ceildivui\", \"args\": [{\"dim\": [1, 0]}, 32]}, 1, 1]")
            .replace(
                "\"written\": true}]",
                "\"written\": true}, {\"set\": 0, \"binding\": 2, \"host_argument\": -1, \"shape\": [], \"element\": \"i32\", \"written\": false, \"value\": {\"dim\": [0, 1]}}]",
            );
        let kernel = SpirvKernel::from_manifest(&manifest, Vec::new()).unwrap();
        assert_eq!(kernel.workgroups, [0, 1, 1]);
        assert_eq!(kernel.bindings[2].host_argument, None);
        let host = Shapes(vec![vec![100, 37], vec![65, 96]]);
        assert_eq!(kernel.with_grid(&host).unwrap().workgroups, [3, 1, 1]);
        let values = kernel.values(&host).unwrap();
        assert_eq!(values, vec![None, None, Some(37i32.to_le_bytes().to_vec())]);
        let error = kernel.with_grid(&Shapes(Vec::new())).unwrap_err();
        assert!(error.contains("host argument 1"), "{error}");
    }

    #[test]
    fn an_unversioned_manifest_is_refused() {
        let manifest = MANIFEST.replace("\"version\": 1, ", "");
        let error = SpirvKernel::from_manifest(&manifest, Vec::new()).unwrap_err();
        assert!(error.contains("has no version"), "{error}");
    }

    #[test]
    fn a_register_kernel_on_cooperative_matrices_says_so_in_its_binary() {
        let manifest = MANIFEST
            .replace("\"strategy\": \"cooperative-matrix\"", "\"strategy\": \"registers\"")
            .replace("\"subgroup_size\": 32, ", "");
        // Header, OpCapability Shader, OpCapability CooperativeMatrixKHR.
        let header = vec![0x0723_0203, 0x0001_0600, 0, 100, 0];
        let shader = [header.clone(), vec![(2 << 16) | 17, 1]].concat();
        let kernel = SpirvKernel::from_manifest(&manifest, shader.clone()).unwrap();
        assert!(!kernel.cooperative_matrix);
        assert_eq!(kernel.subgroup_size, None);
        let matrices = [shader, vec![(2 << 16) | 17, 6022]].concat();
        let kernel = SpirvKernel::from_manifest(&manifest, matrices).unwrap();
        assert!(kernel.cooperative_matrix);
        assert_eq!(kernel.subgroup_size, Some(32));
    }

    #[test]
    fn spirv_words_check_length_and_magic() {
        let mut bytes = 0x0723_0203u32.to_le_bytes().to_vec();
        bytes.extend([0u8; 16]);
        assert_eq!(spirv_words(&bytes).unwrap()[0], 0x0723_0203);
        assert!(spirv_words(&bytes[..18]).unwrap_err().contains("length"));
        bytes[0] = 0;
        assert!(spirv_words(&bytes).unwrap_err().contains("magic"));
    }
}
