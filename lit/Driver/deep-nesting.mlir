// Brackets of any kind nested deeper than MLIR's recursion has stack for (20,000 levels of `[`,
// `tuple<` or `(` overflowed the stack of every tool) are an error at the bracket that goes too
// deep, exit status 1, in each tool that parses user text.
// RUN: python3 -c "print('func.func @f() attributes {x = ' + '[' * 20000 + ']' * 20000 + '} {\n  return\n}')" > %t.array.mlir
// RUN: not tile-opt %t.array.mlir 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tile-compile %t.array.mlir --target spirv -o %t.out 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tile-run %t.array.mlir 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: python3 -c "print('func.func @f(%%a: ' + 'tuple<' * 20000 + 'i32' + '>' * 20000 + ') {\n  return\n}')" > %t.type.mlir
// RUN: not tile-opt %t.type.mlir 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: python3 -c "print('#m = affine_map<(d0) -> (' + '(' * 20000 + 'd0' + ')' * 20000 + ')>')" > %t.map.mlir
// RUN: not tile-opt %t.map.mlir 2>&1 | FileCheck %s --check-prefix=MAP

// ARRAY: array.mlir:1:1031: error: nests regions, attributes or types (braces, brackets, parentheses, angle brackets) deeper than 1000 levels
// TYPE: type.mlir:1:6017: error: nests regions, attributes or types {{.*}} deeper than 1000 levels
// MAP: map.mlir:1:1024: error: nests regions, attributes or types {{.*}} deeper than 1000 levels
