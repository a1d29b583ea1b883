//! Nothing to export: this package exists for its compile-fail tests.
