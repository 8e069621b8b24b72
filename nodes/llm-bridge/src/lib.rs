//! The model backends of the `llm-bridge` node, as a library for the node and its
//! benchmarks: the embedded GGUF model ([`local`]), an OpenAI-compatible service and the
//! scripted stand-in ([`backend`]).

pub mod backend;
pub mod local;
