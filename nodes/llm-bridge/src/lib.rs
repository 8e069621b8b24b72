//! The model backends of the `llm-bridge` node, as a library for the node and its
//! benchmarks: the embedded GGUF model ([`local`], in the bridge or in the model host
//! node), the model host reached over dora ([`host`]), an OpenAI-compatible service and
//! the scripted stand-in ([`backend`]).

pub mod backend;
pub mod host;
pub mod local;
