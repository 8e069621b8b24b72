//! Arrow + metadata in → [`PlayerInput`]: our `segment`, `interrupt`, `pause`/`resume`
//! and clip inputs, and dora node-hub's bare `text`/`audio` inputs.

use audio_utils::resample;
use player_core::PlayerInput;
use voice_protocol::messages::{
    Audio, Chunk, ClipJson, DecodeError, Pause, Prepare, PrepareFor, Segment,
};
use voice_protocol::{hub, hub::LocalQuestionIds, ids};

/// Microseconds from the voice's onset until `at`: from the time the `pause` names (the
/// voice detector's send, stamped by the conductor that holds the floor), else from the
/// pause's own send.
pub fn since_onset_us(
    metadata: &dora_node_api::Metadata,
    data: &dora_node_api::DoraArray,
    at: std::time::SystemTime,
) -> u64 {
    let pause = node_kit::decode::<Pause>(&metadata.parameters, data).unwrap_or_default();
    match pause.onset_sent_us {
        Some(onset) => {
            let onset = std::time::UNIX_EPOCH + std::time::Duration::from_micros(onset as u64);
            at.duration_since(onset).unwrap_or_default().as_micros() as u64
        }
        _ => micros_since_sent(metadata, at),
    }
}

/// Microseconds from the sender's timestamp until `at`.
fn micros_since_sent(metadata: &dora_node_api::Metadata, at: std::time::SystemTime) -> u64 {
    let sent = metadata.timestamp().get_time().to_system_time();
    at.duration_since(sent).unwrap_or_default().as_micros() as u64
}

/// One input as the player's; `None` (with a warning or a debug line) when it cannot be
/// used.
pub fn to_player_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
    local_ids: &mut LocalQuestionIds,
    rate: u32,
) -> Option<PlayerInput> {
    if hub::is_input(id, ids::TEXT) || hub::is_input(id, ids::AUDIO) {
        return hub_input(id, params, data, local_ids, rate);
    }
    match id {
        // The human began to speak: hold at once; a backchannel resumes, a transcript's
        // interrupt drops. No question id needed.
        ids::PAUSE => return Some(PlayerInput::Pause),
        ids::RESUME => return Some(PlayerInput::Resume),
        // The human is speaking and this participant will answer.
        ids::PREPARE => {
            return match node_kit::decode::<Prepare>(params, data) {
                Ok(Prepare {
                    speaker,
                    ahead_of: PrepareFor::Answer,
                }) => Some(PlayerInput::AnswerComing { speaker }),
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!(input = id, error = %e, "unreadable prepare ignored");
                    None
                }
            };
        }
        ids::CLIP | ids::COMMAND => {
            let parsed = node_kit::decode::<ClipJson>(params, data).and_then(|clip| {
                if id == ids::CLIP {
                    clip.parse().map(PlayerInput::Clip)
                } else {
                    clip.parse().map(PlayerInput::Command)
                }
            });
            return match parsed {
                Ok(input) => Some(input),
                Err(e @ DecodeError::Payload(_)) => {
                    tracing::warn!(input = id, error = %e, "unreadable clip input ignored");
                    None
                }
                Err(e) => {
                    tracing::warn!(input = id, error = %e, "invalid clip JSON ignored");
                    None
                }
            };
        }
        // Only its id counts: its kind is not read.
        ids::INTERRUPT => {
            let Some(question_id) = node_kit::question_id(params) else {
                tracing::warn!(input = id, "message without question_id ignored");
                return None;
            };
            local_ids.observe(question_id);
            return Some(PlayerInput::Interrupt { question_id });
        }
        _ => {}
    }
    match id {
        ids::SEGMENT => {
            if let Some(question_id) = node_kit::question_id(params) {
                local_ids.observe(question_id);
            }
            let segment = match node_kit::decode::<Segment>(params, data) {
                Ok(segment) => segment,
                Err(e) => {
                    tracing::warn!(input = id, error = %e, "segment ignored");
                    return None;
                }
            };
            Some(PlayerInput::Segment {
                speaker: segment.speaker,
                question_id: segment.question_id,
                index: segment.index,
                last: segment.last,
                text: segment.text,
            })
        }
        other => {
            tracing::warn!(input = other, "unknown input ignored");
            None
        }
    }
}

/// dora node-hub conventions: `text` / `text_<speaker>` (Utf8, as a node-hub LLM sends it)
/// is one whole utterance to voice; `audio` / `audio_<speaker>` (Float32 with
/// `sample_rate`, 16 kHz when absent, as a node-hub TTS node sends it) one already
/// spoken. Without a `question_id` each gets its own, after everything seen so far.
fn hub_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
    local_ids: &mut LocalQuestionIds,
    rate: u32,
) -> Option<PlayerInput> {
    let is_text = hub::is_input(id, ids::TEXT);
    let prefix = if is_text { ids::TEXT } else { ids::AUDIO };
    if is_text {
        let chunk = node_kit::decode::<Chunk>(params, data).ok()?;
        let question_id = local_ids.or_fresh(chunk.question_id);
        let speaker = hub::speaker_of(id, prefix, chunk.speaker.as_deref(), id).to_owned();
        let text = match chunk.text {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable text ignored");
                return None;
            }
        };
        return Some(PlayerInput::Segment {
            speaker,
            question_id,
            index: 0,
            last: true,
            text,
        });
    }
    let question_id = local_ids.or_fresh(node_kit::question_id(params));
    let block = match node_kit::decode::<Audio>(params, data) {
        Ok(block) => block,
        Err(problem) => {
            tracing::warn!(input = id, %problem, "audio ignored");
            return None;
        }
    };
    let speaker = hub::speaker_of(id, prefix, block.speaker.as_deref(), id).to_owned();
    // NaN and infinities would poison the fades, the levels and the recording: silence.
    if block.silenced > 0 {
        tracing::warn!(
            input = id,
            replaced = block.silenced,
            "audio holds non-finite samples (NaN or infinity): played as silence"
        );
    }
    Some(PlayerInput::Spoken {
        speaker,
        question_id,
        index: 0,
        last: true,
        // A node-hub TTS node may say what the audio speaks.
        text: block.text.unwrap_or_default(),
        samples: resample(&block.samples, block.sample_rate, rate),
    })
}
