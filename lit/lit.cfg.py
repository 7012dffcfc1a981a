# The tile lit suite. Run through `cargo test` (test/tests/lit.rs), or by hand:
#   /usr/lib/llvm-22/bin/lit -v lit/ [-D tile_bin_dir=target/release]
import os

import lit.formats

config.name = "tile"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

repo_root = os.path.dirname(config.test_source_root)
llvm_bin = "/usr/lib/llvm-22/bin"
tile_bin = lit_config.params.get(
    "tile_bin_dir", os.environ.get("TILE_BIN_DIR", os.path.join(repo_root, "target", "debug"))
)
tile_bin = os.path.abspath(tile_bin)

for tool in ["tile-opt", "tile-compile", "tile-run", "libtile_plugin.so"]:
    if not os.path.exists(os.path.join(tile_bin, tool)):
        lit_config.fatal(f"{tool} not found in {tile_bin}: run `cargo build` first")

# tile-opt from our build first; FileCheck, not, and the stock mlir-opt from LLVM 22.
config.environment["PATH"] = os.pathsep.join([tile_bin, llvm_bin, config.environment.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"
config.substitutions.append(("%tile_include", os.path.join(repo_root, "tools", "tile-plugin", "include")))
config.substitutions.append(("%tile_bin", tile_bin))
config.substitutions.append(("%tile_plugin", os.path.join(tile_bin, "libtile_plugin.so")))
config.substitutions.append(("%examples", os.path.join(repo_root, "examples")))
config.substitutions.append(("%mlir_opt", os.path.join(llvm_bin, "mlir-opt")))

# spirv-val that knows KHR cooperative matrices (SPIRV-Tools 2025.5; tools/dev.sh setup fetches it):
# Debian 12's rejects the capability outright.
spirv_val_coopmat = os.path.join(repo_root, "target", "spirv-tools", "cmeel.prefix", "bin", "spirv-val")
if os.path.exists(spirv_val_coopmat):
    config.available_features.add("spirv-val-coopmat")
config.substitutions.append(("%spirv_val_coopmat", spirv_val_coopmat))
config.substitutions.append(("%spirv_dis_coopmat", spirv_val_coopmat[: -len("val")] + "dis"))
