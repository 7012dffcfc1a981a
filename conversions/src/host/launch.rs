//! The host side of a lowered kernel: a `func.func` that takes the host tensors and the grid of
//! the `tile.kernel`, prepares the kernel's arguments (tensor maps included) and launches it
//! (`gpu.launch_func`). The lowering calls it where the `tile.kernel` stood; upstream's
//! `gpu-to-llvm` turns it into calls of MLIR's GPU runtime wrappers. Every GPU target uses it.

use super::symbols::{HostLaunch, Symbols};
use melior::ir::{Value, ValueLike};

/// What a launch takes from the host, in the kernel's argument order.
pub struct Launched<'c, 'a> {
    /// The global tensors (host memrefs), in the kernel's order.
    pub tensors: Vec<Value<'c, 'a>>,
    /// The grid, one host index per dimension the program gives.
    pub grid: Vec<Value<'c, 'a>>,
    /// Integers the kernel takes after its tensors and tensor maps.
    pub scalars: Vec<Value<'c, 'a>>,
}

/// How a kernel is launched beside its tensors (passed as the memrefs the host holds).
pub struct Arguments<'f> {
    /// Dynamic shared memory the launch asks for.
    pub shared_bytes: Option<i64>,
    /// Threads a block launches.
    pub threads: i64,
    /// Tensor maps the kernel takes after its tensors (the register rules' TMA copies).
    pub tensor_maps: &'f [TensorMapArgument],
}

/// A tensor map the host encodes for the kernel: of global tensor `tensor` (its index among the
/// launch's tensors), with the box `box_` (one size per dimension, outermost first), of type
/// `map_type` (an `!nvgpu.tensormap.descriptor`), passed as a pointer to the encoded map.
pub struct TensorMapArgument {
    /// Index of the tensor among the launch's tensors.
    pub tensor: usize,
    /// The box, outermost first.
    pub box_: Vec<i64>,
    /// The `!nvgpu.tensormap.descriptor` type.
    pub map_type: String,
}

/// The launch function `{stem}_launch` of the kernel `symbols` name, taking what `launched` says.
pub fn launch<'c, 'a>(launched: Launched<'c, 'a>, symbols: &Symbols, arguments: &Arguments) -> HostLaunch<'c, 'a> {
    let name = format!("{}_launch", symbols.stem);
    let globals = &launched.tensors;
    let mut inputs = Vec::new();
    let mut body = String::new();
    let mut line = |text: String| {
        body.push_str("    ");
        body.push_str(&text);
        body.push('\n');
    };
    line("%one = arith.constant 1 : index".into());
    let mut kernel_arguments = Vec::new();
    for (index, global) in globals.iter().enumerate() {
        let ty = global.r#type().to_string();
        inputs.push(format!("%t{index}: {ty}"));
        kernel_arguments.push(format!("%t{index} : {ty}"));
    }
    for (index, map) in arguments.tensor_maps.iter().enumerate() {
        let global = globals[map.tensor];
        let ty = global.r#type().to_string();
        let element = super::values::host_tensor(global).element;
        line(format!("%mu{index} = memref.cast %t{} : {ty} to memref<*x{element}>", map.tensor));
        let sizes: Vec<String> = map
            .box_
            .iter()
            .enumerate()
            .map(|(dim, size)| {
                line(format!("%mb{index}_{dim} = arith.constant {size} : index"));
                format!("%mb{index}_{dim}")
            })
            .collect();
        line(format!("%md{index} = nvgpu.tma.create.descriptor %mu{index} box[{}] : memref<*x{element}> -> {}", sizes.join(", "), map.map_type));
        line(format!("%mp{index} = builtin.unrealized_conversion_cast %md{index} : {} to !llvm.ptr", map.map_type));
        kernel_arguments.push(format!("%mp{index} : !llvm.ptr"));
    }
    for (index, scalar) in launched.scalars.iter().enumerate() {
        let ty = scalar.r#type().to_string();
        inputs.push(format!("%s{index}: {ty}"));
        kernel_arguments.push(format!("%s{index} : {ty}"));
    }
    inputs.extend((0..launched.grid.len()).map(|dim| format!("%g{dim}: index")));
    let grid: Vec<String> = (0..3).map(|dim| if dim < launched.grid.len() { format!("%g{dim}") } else { "%one".into() }).collect();
    line(format!("%threads = arith.constant {} : index", arguments.threads));
    let shared = match arguments.shared_bytes {
        Some(bytes) => {
            line(format!("%shared = arith.constant {bytes} : i32"));
            " dynamic_shared_memory_size %shared"
        }
        None => "",
    };
    line(format!(
        "gpu.launch_func @{}::@{} blocks in ({}) threads in (%threads, %one, %one){shared} args({})",
        symbols.module,
        symbols.kernel,
        grid.join(", "),
        kernel_arguments.join(", ")
    ));
    line("return".into());
    let mut operands = launched.tensors.clone();
    operands.extend(launched.scalars);
    operands.extend(launched.grid);
    HostLaunch {
        text: format!("  func.func private @{name}({}) {{\n{body}  }}\n", inputs.join(", ")),
        name,
        operands,
    }
}

/// The `!nvgpu.tensormap.descriptor` type of a TMA box `box_` (outermost first: 1 in each leading
/// dimension, then rows and columns) of `element`s in workgroup memory, each row swizzled over
/// `swizzle` bytes, past the tensor's end read as zeros.
pub fn tensor_map_type(box_: &[i64], element: &str, swizzle: i64) -> String {
    let shape: Vec<String> = box_.iter().map(i64::to_string).collect();
    let swizzle = match swizzle {
        128 => "swizzle_128b",
        64 => "swizzle_64b",
        32 => "swizzle_32b",
        _ => "none",
    };
    format!(
        "!nvgpu.tensormap.descriptor<tensor = memref<{}x{element}, #gpu.address_space<workgroup>>, swizzle = {swizzle}, l2promo = l2promo_128b, oob = zero, interleave = none>",
        shape.join("x")
    )
}
