//! How a Hopper kernel's blocks walk their output tiles: one tile a block, or persistent blocks
//! that walk many, in the grouped order; and where each main-loop step's tile comes from, so that
//! the TMA ring runs on from one tile into the next.

use super::config::Persistent;
use crate::gemm::text::Text;

/// Rows of output tiles visited together: blocks launched one after another walk down a column of
/// `RASTER_GROUP` tile rows before moving right, so that neighbours share A and B panels in L2.
const RASTER_GROUP: i64 = 8;

/// Maps the linear tile index `linear` of a `width` x `height` tile grid to (column, row) in the
/// grouped order. Tiles are independent, so any bijection keeps the program's meaning.
/// `known_height` is `height` when it is a constant: groups are then all full when it divides.
fn rasterize(t: &mut Text, linear: &str, width: &str, height: &str, known_height: Option<i64>) -> Vec<String> {
    let group_rows = t.index(RASTER_GROUP);
    let group_blocks = t.let_(
        "gblocks",
        format!("arith.muli {width}, {group_rows} : index"),
    );
    let group = t.let_(
        "grp",
        format!("arith.divui {linear}, {group_blocks} : index"),
    );
    let first_row = t.let_("frow", format!("arith.muli {group}, {group_rows} : index"));
    // The last group may be short; with full groups only, `rows` is a constant (no division by a
    // run-time value below).
    let rows = if known_height.is_some_and(|height| height % RASTER_GROUP == 0) {
        group_rows.clone()
    } else {
        let left = t.let_("left", format!("arith.subi {height}, {first_row} : index"));
        t.let_("rows", format!("arith.minui {left}, {group_rows} : index"))
    };
    let within = t.let_(
        "within",
        format!("arith.remui {linear}, {group_blocks} : index"),
    );
    let row_in_group = t.let_("rin", format!("arith.remui {within}, {rows} : index"));
    let row = t.let_(
        "bid",
        format!("arith.addi {first_row}, {row_in_group} : index"),
    );
    let column = t.let_("bid", format!("arith.divui {within}, {rows} : index"));
    vec![column, row]
}

/// How a block walks its output tiles, and where the steps of its main loops come from. Steps count
/// on across tiles (step `g` is main-loop iteration `g % trips` of the block's tile `g / trips`),
/// so that the ring's stages and barrier phases carry from one tile into the next.
pub(super) enum Walk {
    /// One tile per block, the launched block's (in the grouped order for 2-D grids).
    One { blocks: Vec<String>, steps: String },
    /// Persistent: `tiles` tiles of the grid, in `order`.
    Many { order: TileOrder, tiles: String, steps: String },
}

/// The tiles a persistent block walks: `first`, `first + stride`, ... of the `width` x `height`
/// grid, in the grouped order.
pub(super) struct TileOrder {
    first: String,
    stride: String,
    width: String,
    height: String,
    /// `height`, when it is a constant.
    known_height: Option<i64>,
}

impl TileOrder {
    /// Emits the coordinates of the block's `nth` tile.
    fn tile(&self, t: &mut Text, nth: &str) -> Vec<String> {
        let offset = t.let_("toff", format!("arith.muli {nth}, {} : index", self.stride));
        let linear = t.let_("tile", format!("arith.addi {}, {offset} : index", self.first));
        rasterize(t, &linear, &self.width, &self.height, self.known_height)
    }
}

impl Walk {
    pub(super) fn new(t: &mut Text, persistent: Option<Persistent>, launched: &[String], trips: &str) -> Walk {
        match persistent {
            None => {
                let blocks = if launched.len() == 2 {
                    let width = t.let_("gx", "gpu.grid_dim x");
                    let height = t.let_("gy", "gpu.grid_dim y");
                    let row_major = t.let_("lin", format!("arith.muli {}, {width} : index", launched[1]));
                    let linear = t.let_("lin", format!("arith.addi {row_major}, {} : index", launched[0]));
                    rasterize(t, &linear, &width, &height, None)
                } else {
                    launched.to_vec()
                };
                Walk::One { blocks, steps: trips.to_owned() }
            }
            Some(persistent) => {
                let stride = t.let_("stride", "gpu.grid_dim x");
                // A static grid is constants; a dynamic one arrives as the last two parameters.
                let (width, height) = match persistent.tiles {
                    Some((x, y)) => (t.index(x), t.index(y)),
                    None => (
                        t.let_("tilesx", "arith.index_cast %tiles_x : i64 to index"),
                        t.let_("tilesy", "arith.index_cast %tiles_y : i64 to index"),
                    ),
                };
                let total = t.let_("total", format!("arith.muli {width}, {height} : index"));
                // Tiles first, first + stride, ... below total: ceil((total - first) / stride).
                // A launcher may start more blocks than there are tiles: those get none.
                let first = &launched[0];
                let left = t.let_("left", format!("arith.subi {total}, {first} : index"));
                let share = t.let_("mine", format!("arith.ceildivui {left}, {stride} : index"));
                let has_tiles = t.let_("hastiles", format!("arith.cmpi ult, {first}, {total} : index"));
                let none = t.index(0);
                let tiles = t.let_("mine", format!("arith.select {has_tiles}, {share}, {none} : index"));
                let steps = t.let_("steps", format!("arith.muli {tiles}, {trips} : index"));
                let known_height = persistent.tiles.map(|(_, y)| y);
                let order = TileOrder { first: first.clone(), stride, width, height, known_height };
                Walk::Many { order, tiles, steps }
            }
        }
    }

    /// The value one past the block's last step.
    pub(super) fn steps(&self) -> &str {
        match self {
            Walk::One { steps, .. } | Walk::Many { steps, .. } => steps,
        }
    }

    /// Emits the main-loop iteration and the tile coordinates of step `g`.
    pub(super) fn step(&self, t: &mut Text, g: &str, trips: &str) -> (String, Vec<String>) {
        match self {
            Walk::One { blocks, .. } => (g.to_owned(), blocks.clone()),
            Walk::Many { order, .. } => {
                let nth = t.let_("nth", format!("arith.divui {g}, {trips} : index"));
                let iteration = t.let_("kit", format!("arith.remui {g}, {trips} : index"));
                (iteration, order.tile(t, &nth))
            }
        }
    }

    /// Opens the block's tile (a loop over its tiles when persistent) and returns the tile's
    /// coordinates, its first step and, when persistent, the coordinates of the block's next tile.
    pub(super) fn open_tile(&self, t: &mut Text, trips: &str) -> (Vec<String>, String, Option<Vec<String>>) {
        match self {
            Walk::One { blocks, .. } => (blocks.clone(), t.index(0), None),
            Walk::Many { order, tiles, .. } => {
                let zero = t.index(0);
                let one = t.index(1);
                let nth = t.fresh("nth");
                t.line(format!("scf.for {nth} = {zero} to {tiles} step {one} {{"));
                let blocks = order.tile(t, &nth);
                let base = t.let_("base", format!("arith.muli {nth}, {trips} : index"));
                let following = t.let_("nth", format!("arith.addi {nth}, {one} : index"));
                let next = order.tile(t, &following);
                (blocks, base, Some(next))
            }
        }
    }

    /// Closes what [`Walk::open_tile`] opened.
    pub(super) fn close_tile(&self, t: &mut Text) {
        if let Walk::Many { .. } = self {
            t.line("}");
        }
    }
}

/// The main-loop iteration and tile coordinates of the step `ahead` steps after step `iterator`
/// of the current tile (`this`), when that step lies in this tile or the next (`next`).
pub(super) fn pick_tile(t: &mut Text, iterator: &str, ahead: &str, trips: &str, this: &[String], next: &[String]) -> (String, Vec<String>) {
    let local = t.let_("local", format!("arith.addi {iterator}, {ahead} : index"));
    let inside = t.let_("inside", format!("arith.cmpi ult, {local}, {trips} : index"));
    let wrapped = t.let_("wrapped", format!("arith.subi {local}, {trips} : index"));
    let iteration = t.let_("kit", format!("arith.select {inside}, {local}, {wrapped} : index"));
    let coordinates = this
        .iter()
        .zip(next)
        .map(|(this, next)| t.let_("bid", format!("arith.select {inside}, {this}, {next} : index")))
        .collect();
    (iteration, coordinates)
}
