//! Nothing to export: this package exists for its tests; what they share is `test-support`.
