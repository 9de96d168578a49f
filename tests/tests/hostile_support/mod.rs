//! The hostile reference corpus: its format and its generator.

pub mod corpus;
pub mod forge;
