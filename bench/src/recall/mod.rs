//! Preview recall: does the preview keep what a model needs? A corpus of
//! realistic tool outputs, each with the exact strings ("needles") a model
//! needs to act on it; the `recall` suite counts the
//! needles each preview shows.

pub mod corpus;

mod build;
mod data;
mod failures;
mod listings;
mod logs;
mod runs;
pub(crate) mod synth;

pub use corpus::{Case, Family, Needle, Position, cases};
