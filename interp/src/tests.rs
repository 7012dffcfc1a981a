//! Unit tests: each op on tiny programs, against results computed here independently.
