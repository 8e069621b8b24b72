//! The recognizers of the `asr-bridge` node, as a library for the node and its
//! benchmarks: embedded Whisper ([`whisper`]), an OpenAI-compatible service and
//! pocketsphinx ([`recognizer`]).

pub mod recognizer;
pub mod whisper;
