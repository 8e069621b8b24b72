//! The moderator's messages: dora inputs into the conductor's, and what it returned sent
//! and written.

use dora_node_api::DoraNode;
use node_kit::conduct::Received;
use rehearsal_core::rehearsal::{Input, MODERATOR, Output};
use voice_protocol::ids;
use voice_protocol::messages::{Board, Chunk, Interrupt, Transcript, Turn, Utterance};

use crate::files::SessionFiles;

/// An input as the conductor's [`Input`]; `None` if it cannot be read.
pub fn decode(input: Received<'_>) -> Option<Input> {
    let id = input.id;
    // Their payloads are not used; a speech start's time is passed on with the hold.
    match id {
        ids::SPEECH_STARTED => {
            return Some(Input::SpeechStarted {
                onset_us: input.sent_us(),
            });
        }
        ids::BACKCHANNEL => return Some(Input::Backchannel),
        ids::PLAYBACK_STARTED => {
            return Some(Input::PlaybackStarted {
                question_id: input.played(),
            });
        }
        ids::PLAYBACK_DONE => {
            return Some(Input::Played {
                question_id: input.played(),
            });
        }
        _ => {}
    }
    if ![ids::PRESENTER, ids::HUMAN_TEXT, ids::CONTROL].contains(&id) && !id.starts_with(ids::REPLY)
    {
        // A panelist's stream, or an unknown input: the rehearsal tells them apart.
        let chunk = input.chunk();
        return Some(Input::Text {
            agent: id.to_owned(),
            question_id: chunk.question_id,
            text: chunk.text,
            status: chunk.status,
            error: chunk.error,
        });
    }
    Some(match id {
        // Typed on a page: said, as a final transcript is.
        ids::PRESENTER | ids::HUMAN_TEXT => {
            let text = input.readable_text()?;
            let transcript = input.decode::<Transcript>().ok()?;
            if let Some(raw) = &transcript.unknown_status {
                tracing::warn!(input = id, value = %raw, "unknown session_status; treating the message as complete");
            }
            Input::Presenter {
                ended: transcript.is_final(),
                speaker: transcript.speaker,
                text,
            }
        }
        ids::CONTROL => Input::Control(input.control_command()?),
        reply => {
            let meta = input.reply()?;
            Input::Reply {
                input: reply.to_owned(),
                speaker: meta.speaker,
                request_id: meta.request_id,
                text: meta.text,
                error: meta.error,
            }
        }
    })
}

/// Sends and writes what the conductor returned, in order. Every file is written even
/// if a send fails; the first send error is returned.
pub fn emit(node: &mut DoraNode, files: &mut SessionFiles, out: Vec<Output>) -> eyre::Result<()> {
    let mut sent = Ok(());
    let mut keep_first_error = |result: eyre::Result<()>| {
        if let Err(e) = result
            && sent.is_ok()
        {
            sent = Err(e);
        }
    };
    for message in out {
        match message {
            Output::Turn(turn) => {
                let (context, parts) = files.assemble(&turn.agent);
                tracing::info!(agent = %turn.agent, question_id = turn.question_id, instruction = ?turn.kind, context_bytes = context.len(), "turn");
                files.record(&turn.record(context.len(), &parts));
                let asks = turn.asks();
                let message = Turn {
                    question_id: turn.question_id,
                    speaker: turn.agent,
                    instruction: Some(turn.instruction),
                    context: Some(context).filter(|c| !c.is_empty()),
                    prepared: turn.prepared,
                    exchange_id: Some(turn.exchange_id),
                    takes_up: turn.takes_up,
                    asks,
                    answers_human: false,
                };
                keep_first_error(node_kit::send(node, message));
            }
            Output::Line {
                question_id,
                text,
                kind,
            } => {
                tracing::info!(kind = kind.slug(), question_id, %text, "moderator says");
                let line = Chunk {
                    line_kind: Some(kind.slug().to_owned()),
                    ..Chunk::line(question_id, MODERATOR, text)
                };
                keep_first_error(node_kit::send(node, line));
            }
            Output::Utterance {
                speaker,
                question_id,
                text,
                human,
            } => {
                let utterance = Utterance {
                    question_id,
                    speaker,
                    text,
                    human,
                    ..Utterance::default()
                };
                keep_first_error(node_kit::send(node, utterance));
            }
            Output::PresenterText {
                speaker,
                question_id,
                text,
            } => {
                let said = Chunk::line(question_id, speaker, text);
                keep_first_error(node_kit::send_on(node, ids::PRESENTER_TEXT, said));
            }
            Output::Request(mut request) => {
                // A request to one panelist starts from the context its turns get.
                if let Some(to) = &request.to {
                    let (context, _) = files.assemble(to);
                    request.context = Some(context).filter(|c| !c.is_empty());
                }
                keep_first_error(node_kit::send(node, request));
            }
            Output::Interrupt { question_id, kind } => {
                keep_first_error(node_kit::send(node, Interrupt::new(kind, question_id)));
            }
            Output::Floor(change) => keep_first_error(node_kit::send_floor(node, change)),
            Output::Phase(phase) => {
                tracing::info!(phase = phase.name(), "phase");
                keep_first_error(node_kit::send(node, phase));
            }
            Output::Board(board) => match Board::of(&board) {
                Ok(board) => keep_first_error(node_kit::send(node, board)),
                Err(error) => tracing::warn!(%error, "the board not sent"),
            },
            Output::Context { file, text, mode } => files.write(&file, &text, mode),
            Output::Record(record) => files.record(&record),
            Output::Debrief {
                markdown,
                figures,
                remembered,
            } => files.debrief(&markdown, &figures, remembered),
            Output::FreezeContext => files.freeze(),
            Output::Notice(notice) => node_kit::conduct::log_notice(notice.level(), &notice),
        }
    }
    sent
}
