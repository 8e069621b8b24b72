//! Deliberately empty: see this crate's Cargo.toml.
