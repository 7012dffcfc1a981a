//===- TileLink.cpp - an HSA code object linked by lld, in process -------===//
//
// `tile-compile` links each gfx942 kernel's ELF object into its HSA code object (`ld.lld -shared`,
// what MLIR's ROCDL serialization runs). Running ld.lld as a process cost a load of libLLVM per
// kernel (its relocation alone was a few percent of a many-kernel gfx942 compilation); lld's ELF
// driver, linked here from lld-22's libraries, does the same link in process.
//
//===----------------------------------------------------------------------===//

#include "TileShim.h"

#include "lld/Common/Driver.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

LLD_HAS_DRIVER(elf)

extern "C" bool tileShimLinkAmdgcn(const char *object, const char *output, TileByteSink sink,
                                   void *userData) {
  // lld may be run again after a link, but not by two threads at once (its context is global).
  static std::mutex running;
  static bool usable = true;
  std::lock_guard<std::mutex> lock(running);
  std::string message;
  if (!usable) {
    message = "lld cannot run again after an earlier failure in this process";
    sink(userData, message.data(), message.size());
    return false;
  }
  llvm::raw_string_ostream errors(message);
  std::string ignored;
  llvm::raw_string_ostream out(ignored);
  const char *arguments[] = {"ld.lld", "-shared", object, "-o", output};
  lld::Result result = lld::lldMain(arguments, out, errors, {{lld::Gnu, &lld::elf::link}});
  usable = result.canRunAgain;
  if (result.retCode != 0) {
    errors.flush();
    if (message.empty())
      message = "ld.lld failed";
    sink(userData, message.data(), message.size());
    return false;
  }
  return true;
}
