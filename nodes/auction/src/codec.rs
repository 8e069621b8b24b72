//! The auction's messages: dora inputs into the debate's, and its decisions sent.

use auction_core::{
    EventRecord, Input, Output, RecordKind, SessionEndRecord, render_auction_table,
};
use dora_node_api::DoraNode;
use node_kit::conduct::Received;
use voice_protocol::messages::{AuctionEvent, ClipJson, DecodeError, Interrupt, Turn, Utterance};
use voice_protocol::{InterruptKind, ids};

/// Decodes one input; `None` (with a warning) when it cannot be used.
pub fn decode(input: Received<'_>, participants: &[String]) -> Option<Input> {
    fn clip<T: serde::de::DeserializeOwned>(input: &Received<'_>) -> Option<T> {
        match input.decode::<ClipJson>().and_then(|clip| clip.parse()) {
            Ok(report) => Some(report),
            Err(e @ DecodeError::Payload(_)) => {
                tracing::warn!(input = input.id, error = %e, "unreadable input ignored");
                None
            }
            Err(e) => {
                tracing::warn!(input = input.id, error = %e, "invalid JSON ignored");
                None
            }
        }
    }
    let id = input.id;
    match id {
        ids::CLIP_READY => return clip(&input).map(Input::ClipReady),
        ids::CLIP_STARTED => return clip(&input).map(Input::ClipStarted),
        ids::BEAT => return clip(&input).map(Input::Beat),
        ids::CLIP_FINISHED => return clip(&input).map(Input::ClipFinished),
        // The human: a speech start's time is passed on with the hold.
        ids::SPEECH_STARTED => {
            return Some(Input::SpeechStarted {
                onset_us: input.sent_us(),
            });
        }
        ids::BACKCHANNEL => return Some(Input::Backchannel),
        ids::HUMAN | ids::HUMAN_TEXT => {
            return input.human_words().map(|w| Input::Human {
                speaker: w.speaker,
                text: w.text,
                heard: w.heard,
            });
        }
        _ => {}
    }
    let reply = input.reply()?;
    if let Some(request_id) = reply.request_id {
        return Some(Input::Reply {
            request_id,
            text: reply.text,
            error: reply.error,
        });
    }
    if let Some(agent) = participants.iter().find(|p| p.as_str() == id) {
        let chunk = input.chunk();
        let Some(question_id) = chunk.question_id else {
            tracing::warn!(input = id, "text without question_id ignored");
            return None;
        };
        let ended = chunk.ends();
        let text = match chunk.text {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(input = id, error = %e, "unreadable input ignored");
                return None;
            }
        };
        return Some(Input::Text {
            agent: agent.clone(),
            question_id,
            text,
            ended,
            error: chunk.error,
        });
    }
    tracing::warn!(
        input = id,
        "unknown input ignored (not a participant, a reply or a player report)"
    );
    None
}

/// Sends the conductor's messages.
pub fn send(node: &mut DoraNode, out: Vec<Output>) -> eyre::Result<()> {
    for o in out {
        match o {
            Output::Turn {
                agent,
                question_id,
                instruction,
            } => {
                tracing::info!(%agent, question_id, "segment requested");
                let turn = Turn {
                    question_id,
                    speaker: agent,
                    instruction: Some(instruction),
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::AnswerTurn {
                agent,
                question_id,
                instruction,
            } => {
                tracing::info!(%agent, question_id, "the human's answer requested");
                let turn = Turn {
                    question_id,
                    speaker: agent,
                    instruction: Some(instruction),
                    answers_human: true,
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::HumanSaid {
                speaker,
                question_id,
                text,
                heard,
            } => {
                tracing::info!(%speaker, question_id, text = %voice_protocol::shorten(&text), "the human said");
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    human: true,
                    heard,
                    ..Utterance::default()
                };
                node_kit::send(node, utterance)?;
            }
            Output::Floor(change) => node_kit::send_floor(node, change)?,
            Output::Request { agent, request } => {
                node_kit::send_on(node, &format!("{}_{agent}", ids::REQUEST), request)?;
            }
            Output::Interrupt { question_id } => {
                node_kit::send(node, Interrupt::new(InterruptKind::Cancel, question_id))?;
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
                interrupted,
            } => {
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    interrupted,
                    ..Utterance::default()
                };
                node_kit::send(node, utterance)?;
            }
            Output::Clip(spec) => {
                node_kit::send_on(node, ids::CLIP, ClipJson::of(spec.clip_id.clone(), &spec)?)?;
            }
            Output::Command(command) => {
                tracing::debug!(?command, "player command");
                node_kit::send_on(
                    node,
                    ids::COMMAND,
                    ClipJson::of(command.clip_id(), &command)?,
                )?;
            }
            Output::Record(record) => {
                match &record.kind {
                    RecordKind::Auction(a) => tracing::info!("\n{}", render_auction_table(a)),
                    RecordKind::Interrupt(i) => {
                        tracing::info!(agent = %i.agent_id, interrupted = %i.interrupted_id, beat = i.beat, "hard interrupt")
                    }
                    RecordKind::Interjection(i) => {
                        tracing::info!(agent = %i.agent_id, speaker = %i.speaker_id, kind = ?i.kind, "interjection")
                    }
                    RecordKind::Segment(s) => {
                        tracing::debug!(agent = %s.agent_id, clip = %s.clip_id, role = auction_core::debate::role_name(s.role), "main clip")
                    }
                    _ => {}
                }
                send_record(node, &record)?;
            }
            Output::Notice(notice) => node_kit::conduct::log_notice(notice.level(), &notice),
            Output::Ended(reason) => {
                tracing::info!(?reason, "the auction session ended");
                // The end is on record for the session log too.
                let record = EventRecord::new(RecordKind::SessionEnd(SessionEndRecord { reason }));
                send_record(node, &record)?;
            }
        }
    }
    Ok(())
}

/// An event record on `auction`, for the console and the session's events file.
fn send_record(node: &mut DoraNode, record: &EventRecord) -> eyre::Result<()> {
    match AuctionEvent::of(record) {
        Ok(event) => node_kit::send(node, event),
        Err(error) => {
            tracing::warn!(%error, "an auction record not sent");
            Ok(())
        }
    }
}
