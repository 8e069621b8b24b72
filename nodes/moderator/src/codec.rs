//! The moderator's messages: dora inputs into the roundtable's, and its decisions sent.

use dora_node_api::DoraNode;
use moderator_core::roundtable::{Input, MODERATOR, Output};
use node_kit::conduct::Received;
use voice_protocol::messages::{Chunk, Interrupt, Turn, Utterance};
use voice_protocol::{InterruptKind, StreamStatus, ids};

/// Decodes one input for the conductor; `None` (with a warning) when it cannot be used.
pub fn decode(input: Received<'_>) -> Option<Input> {
    match input.id {
        // Its payload is not read.
        ids::PLAYBACK_DONE => match input.played() {
            Some(question_id) => Some(Input::Played { question_id }),
            None => {
                tracing::warn!("playback_done without question_id ignored");
                None
            }
        },
        ids::PLAYBACK_STARTED => match input.played() {
            Some(question_id) => Some(Input::PlaybackStarted { question_id }),
            None => {
                tracing::warn!("playback_started without question_id ignored");
                None
            }
        },
        // A speech start's time is passed on with the hold.
        ids::SPEECH_STARTED => Some(Input::SpeechStarted {
            onset_us: input.sent_us(),
        }),
        ids::BACKCHANNEL => Some(Input::Backchannel),
        // Spoken (a final transcript) or typed on a page.
        ids::HUMAN | ids::HUMAN_TEXT => input.human_words().map(|w| Input::Human {
            speaker: w.speaker,
            text: w.text,
            heard: w.heard,
        }),
        ids::CONTROL => input.control_command().map(Input::Control),
        reply if reply.starts_with(ids::REPLY) => {
            let meta = input.reply()?;
            Some(Input::Reply {
                input: reply.to_owned(),
                speaker: meta.speaker,
                request_id: meta.request_id,
                answer: meta.text,
                error: meta.error,
            })
        }
        agent => {
            let chunk = input.chunk();
            let ends = chunk.ends();
            let text = match chunk.text {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(input = agent, error = %e, "unreadable input ignored");
                    // An `ended` chunk still ends the utterance.
                    if chunk.status != Some(StreamStatus::Ended) {
                        return None;
                    }
                    String::new()
                }
            };
            Some(Input::Text {
                input: agent.to_owned(),
                question_id: chunk.question_id,
                ends,
                text,
                error: chunk.error,
            })
        }
    }
}

pub fn emit(node: &mut DoraNode, out: Vec<Output>) -> eyre::Result<()> {
    for message in out {
        match message {
            Output::Turn {
                agent,
                question_id,
                instruction,
                answers_human,
            } => {
                tracing::info!(%agent, question_id, answers_human, "turn");
                let turn = Turn {
                    question_id,
                    speaker: agent,
                    instruction,
                    answers_human,
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::Line {
                question_id,
                text,
                kind,
            } => {
                tracing::info!(question_id, kind = kind.as_str(), %text, "moderator");
                let line = Chunk {
                    kind: Some(kind.as_str().to_owned()),
                    ..Chunk::line(question_id, MODERATOR, text)
                };
                node_kit::send(node, line)?;
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
                human,
                heard,
            } => {
                tracing::info!(%speaker, question_id, human, text = %voice_protocol::shorten(&text), "utterance finished");
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    human,
                    heard,
                    ..Utterance::default()
                };
                node_kit::send(node, utterance)?;
            }
            Output::Interrupt { question_id } => {
                tracing::info!(question_id, "interrupt");
                node_kit::send(node, Interrupt::new(InterruptKind::Cancel, question_id))?;
            }
            Output::Floor(change) => node_kit::send_floor(node, change)?,
            Output::Request(request) => node_kit::send(node, request)?,
            Output::Decision(decision) => {
                let target = decision.target.as_deref().unwrap_or("-");
                tracing::info!(phase = %decision.phase, action = %decision.action, target, reason = %decision.reason, "decision");
                node_kit::send(node, decision)?
            }
            Output::Notice(notice) => node_kit::conduct::log_notice(notice.level(), &notice),
            Output::Status(status) => node_kit::send(node, status)?,
        }
    }
    Ok(())
}
