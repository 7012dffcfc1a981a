//! The host side of a lowered kernel: a `func.func` that takes the host tensors, the grid of the
//! `tile.kernel` and its size parameters, prepares the kernel's arguments and launches it
//! (`gpu.launch_func`). The lowering calls it where the `tile.kernel` stood; upstream's
//! `gpu-to-llvm` turns it into calls of MLIR's GPU runtime wrappers. The GEMM renderers and the
//! plain strategy use it alike.

use super::{
    install::{HostLaunch, Symbols},
    plan::GemmPlan,
};
use melior::ir::{Value, ValueLike};

/// What a launch takes from the host, in the kernel's argument order.
pub struct Launched<'c, 'a> {
    /// The global tensors (host memrefs), in the kernel's order.
    pub tensors: Vec<Value<'c, 'a>>,
    /// The grid, one host index per dimension the program gives.
    pub grid: Vec<Value<'c, 'a>>,
    /// The size parameters (host indices).
    pub params: Vec<Value<'c, 'a>>,
}

impl<'c, 'a> Launched<'c, 'a> {
    /// What a GEMM kernel rendered from `plan` takes: A, B, the result, the grid, the sizes.
    pub fn of(plan: &GemmPlan<'c, 'a>) -> Self {
        Launched {
            tensors: vec![plan.a.global, plan.b.global, plan.output.global],
            grid: plan.grid.clone(),
            params: plan.params.clone(),
        }
    }
}

/// Emits (as lines, through the first argument) what makes global tensor `index` (host value
/// `%t{index}` of type `ty`, elements of type `element`) a kernel argument, and returns the argument
/// as `value : type`.
pub type TensorArgument<'f> = dyn Fn(&mut dyn FnMut(String), usize, &str, &str) -> String + 'f;

/// How a target passes a kernel its tensors and sizes.
pub struct Arguments<'f> {
    /// How a global tensor becomes a kernel argument (see [`TensorArgument`]).
    pub tensor: &'f TensorArgument<'f>,
    /// The type the kernel takes a size parameter as (`index`, or `i64`).
    pub size_type: &'static str,
    /// Dynamic shared memory the launch asks for.
    pub shared_bytes: Option<i64>,
    /// Threads a block launches.
    pub threads: i64,
    /// For a persistent launch, the most blocks it launches (one dimension, at most one per tile
    /// of the program's grid), instead of the program's grid.
    pub persistent_blocks: Option<i64>,
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

/// Passes global tensor `index` to the kernel as it is: a memref, as the host holds it.
pub fn memref_argument(_: &mut dyn FnMut(String), index: usize, ty: &str, _element: &str) -> String {
    format!("%t{index} : {ty}")
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
        let element = super::launch::host_tensor(*global).element;
        kernel_arguments.push((arguments.tensor)(&mut line, index, &ty, &element));
    }
    for (index, map) in arguments.tensor_maps.iter().enumerate() {
        let global = globals[map.tensor];
        let ty = global.r#type().to_string();
        let element = super::launch::host_tensor(global).element;
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
    inputs.extend((0..launched.grid.len()).map(|dim| format!("%g{dim}: index")));
    for index in 0..launched.params.len() {
        inputs.push(format!("%s{index}: index"));
        if arguments.size_type == "index" {
            kernel_arguments.push(format!("%s{index} : index"));
        } else {
            line(format!("%q{index} = arith.index_cast %s{index} : index to {}", arguments.size_type));
            kernel_arguments.push(format!("%q{index} : {}", arguments.size_type));
        }
    }
    let grid: Vec<String> = match arguments.persistent_blocks {
        Some(most) => {
            // One block per tile, at most `most`: the blocks walk the grid's tiles.
            let tiles = (1..launched.grid.len()).fold("%g0".to_owned(), |product, dim| {
                line(format!("%tiles{dim} = arith.muli {product}, %g{dim} : index"));
                format!("%tiles{dim}")
            });
            line(format!("%most = arith.constant {most} : index"));
            line(format!("%blocks = arith.minui {tiles}, %most : index"));
            vec!["%blocks".into(), "%one".into(), "%one".into()]
        }
        None => (0..3)
            .map(|dim| if dim < launched.grid.len() { format!("%g{dim}") } else { "%one".into() })
            .collect(),
    };
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
    operands.extend(launched.grid);
    operands.extend(launched.params);
    HostLaunch {
        text: format!("  func.func private @{name}({}) {{\n{body}  }}\n", inputs.join(", ")),
        name,
        operands,
    }
}
