//! Dora inputs → [`PresenterInput`]: the moderator's phase, and the lines reported.

use dora_node_api::{DoraArray, MetadataParameters};
use human_script::presenter::{LineReport, PresenterInput};
use voice_protocol::ids;
use voice_protocol::messages::{Chunk, RehearsalPhase};

/// What input `id` tells the presenter; `None` (with a warning) when it cannot be read.
pub fn to_input(
    id: &str,
    parameters: &MetadataParameters,
    data: &DoraArray,
) -> Option<PresenterInput> {
    if id == ids::PHASE {
        return match node_kit::decode::<RehearsalPhase>(parameters, data) {
            Ok(phase) => Some(PresenterInput::Phase(phase)),
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable phase ignored");
                None
            }
        };
    }
    // An utterance or a report: the text and who said it are read.
    let line = node_kit::decode::<Chunk>(parameters, data).unwrap_or_else(|e| Chunk {
        text: Err(e.to_string()),
        ..Chunk::default()
    });
    let text = match line.text {
        Ok(text) => text,
        Err(e) => {
            tracing::warn!(input = id, error = %e, "unreadable input ignored");
            return None;
        }
    };
    let speaker = line.speaker.unwrap_or_default();
    let report = match id {
        ids::UTTERANCE => LineReport::Finished,
        ids::PLAYED => LineReport::Heard,
        other => {
            tracing::warn!(input = other, "unknown input ignored");
            return None;
        }
    };
    Some(PresenterInput::Line {
        report,
        speaker,
        text,
    })
}
