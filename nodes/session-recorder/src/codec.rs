//! What the recorder's inputs say, as [`session_log`] observations.

use std::collections::BTreeSet;

use dora_node_api::MetadataParameters;
use node_kit::DoraMeta;
use session_log::Observed;
use voice_protocol::ids;
use voice_protocol::messages::{
    AuctionEvent, Chunk, Message, ModeratorDecision, Played, Utterance,
};

/// Reads one input's text as an observation; `None` for what is not recorded. An input
/// of no known id is named once (in `unknown`), and only its `error` reports count.
pub fn observed(
    id: &str,
    params: &MetadataParameters,
    text: String,
    unknown: &mut BTreeSet<String>,
) -> Option<Observed> {
    let question_id = node_kit::question_id(params).unwrap_or(0);
    let meta = DoraMeta(params);
    Some(match id {
        ids::TURN => Observed::Turn {
            speaker: text,
            question_id,
        },
        ids::INTERRUPT => Observed::Interrupt {
            kind: text,
            question_id,
        },
        ids::UTTERANCE => {
            let u = Utterance::decode(&meta, text).ok()?;
            Observed::Utterance {
                human: u.human,
                interrupted: u.interrupted,
                speaker: u.speaker,
                text: u.text,
                question_id: u.question_id,
            }
        }
        ids::PLAYED => {
            let played = Played::decode(&meta, text).ok()?;
            Observed::Played {
                question_id,
                interrupted: played.interrupted,
                heard: played.text,
            }
        }
        ids::PLAYBACK_STARTED => Observed::PlaybackStarted { question_id },
        // A conductor's record (one JSON object), written as it came with the time.
        ids::AUCTION => match AuctionEvent::parse(&text) {
            Ok(AuctionEvent(record)) => Observed::Record(record),
            Err(error) => {
                tracing::warn!(input = id, %error, "event record ignored");
                return None;
            }
        },
        // Written as it came, once it reads as a decision.
        ids::DECISION => match ModeratorDecision::parse(&text) {
            Ok(_) => Observed::Decision { detail: text },
            Err(error) => {
                tracing::warn!(%error, "a decision not recorded");
                return None;
            }
        },
        other => match Chunk::decode(&meta, Ok(text)).map(|c| c.error) {
            Ok(Some(message)) => Observed::Error {
                source: other.to_owned(),
                message,
            },
            _ => {
                if unknown.insert(other.to_owned()) {
                    tracing::warn!(
                        input = other,
                        "unknown input: only its `error` reports are recorded; the rest is ignored"
                    );
                }
                return None;
            }
        },
    })
}
