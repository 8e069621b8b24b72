//! The voices nodes speak with, shared by the player and the scripted human:
//! [`espeak`] runs espeak-ng with a deadline (for audio, or for the phonemes Kokoro
//! reads), [`kokoro`] runs the embedded Kokoro-82M model through ONNX Runtime.

pub mod espeak;
pub mod kokoro;

pub use kokoro::{Cancel, Kokoro, KokoroFiles, Voice};
