//! What the scripted human does at each step of its script.

use dora_node_api::DoraNode;
use human_script::HumanOutput;
use voice_protocol::messages::{SpeechStarted, Transcript};

use crate::voice::Voice;

/// One step of the script: a line begins (its voice starts, `speech_started` in text) or
/// has been said (its `transcript`, in text).
pub fn act(
    node: &mut DoraNode,
    action: HumanOutput,
    voice: Option<&mut Voice>,
    text: bool,
) -> eyre::Result<()> {
    match action {
        HumanOutput::SpeechStarted { speaker, line, .. } => {
            tracing::info!(%speaker, line, "the human starts speaking");
            if let Some(voice) = voice {
                voice.speak(line);
            }
            if text {
                node_kit::send(node, SpeechStarted { speaker })?;
            }
        }
        HumanOutput::Transcript {
            speaker,
            text: said,
            ..
        } => {
            tracing::info!(%speaker, text = %said, "the human said");
            if text {
                node_kit::send(node, Transcript::final_words(speaker, said))?;
            }
        }
    }
    Ok(())
}
