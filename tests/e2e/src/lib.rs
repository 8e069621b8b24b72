//! Helpers for running dataflows through the dora CLI in tests.
