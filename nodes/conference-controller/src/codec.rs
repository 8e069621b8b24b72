//! The controller's messages: dora inputs into the core's, the core's decisions out, and
//! what the player is told besides them (from the inputs' metadata).

use conference_core::{Input, Output};
use dora_node_api::DoraNode;
use node_kit::conduct::Received;
use voice_protocol::messages::{
    Control, Interrupt, Message as _, Meta, Pause, Prepare, Resume, Turn, Utterance,
};
use voice_protocol::{ControlCommand, StreamStatus, ids, shorten};

/// What a participant of this dataflow lacks (its input here, at the segmenter, at the
/// recorder, a bridge, a backpressure queue), told once at start: a forgotten line
/// otherwise fails silently. `dataflow-check F` tells the same before a run.
pub fn warn_about_wiring(node: &DoraNode) {
    let findings = node
        .dataflow_descriptor()
        .map_err(|e| e.to_string())
        .and_then(|d| serde_yaml::to_value(d).map_err(|e| e.to_string()))
        .and_then(|v| dataflow_wiring::check_value(&v).map_err(|e| e.to_string()));
    match findings {
        Ok(findings) => {
            for finding in findings {
                tracing::warn!(
                    node = %finding.node,
                    add = %finding.fix,
                    "dataflow wiring: {}",
                    finding.problem
                );
            }
        }
        Err(e) => tracing::debug!(error = %e, "the dataflow's wiring was not checked"),
    }
}

/// Converts one dora input into a core input; bad input is logged and skipped.
pub fn to_core_input(input: Received<'_>) -> Option<Input> {
    let Received {
        id, params, data, ..
    } = input;
    match id {
        // Their payloads are not read; a speech start's time is passed on with the hold.
        ids::SPEECH_STARTED => {
            return Some(Input::SpeechStarted {
                onset_us: input.sent_us(),
            });
        }
        ids::BACKCHANNEL => return Some(Input::Backchannel),
        ids::PLAYBACK_DONE => {
            return match node_kit::question_id(params) {
                Some(question_id) => Some(Input::Played { question_id }),
                None => {
                    tracing::warn!("playback_done without question_id ignored");
                    None
                }
            };
        }
        _ => {}
    }
    let chunk = node_kit::read_chunk(id, params, data);
    let text = match chunk.text {
        Ok(text) => text,
        // An explicit stream status still counts (an `ended` chunk must end the turn).
        Err(e) if chunk.status.is_some() => {
            tracing::warn!(input = id, error = %e, "unreadable text; keeping only its session_status");
            String::new()
        }
        Err(e) => {
            tracing::warn!(input = id, error = %e, "unreadable input ignored");
            return None;
        }
    };
    match id {
        ids::CONTROL => {
            let command = Control::decode(&node_kit::DoraMeta(params), text)
                .map_err(|e| e.to_string())
                .and_then(|c| ControlCommand::parse(&c.command).map_err(|e| e.to_string()));
            match command {
                Ok(command) => Some(Input::Control(command)),
                Err(e) => {
                    tracing::warn!(error = %e, "control input ignored");
                    None
                }
            }
        }
        ids::HUMAN | ids::HUMAN_TEXT => {
            if !StreamStatus::ends_utterance(chunk.status) {
                tracing::debug!(text = %shorten(&text), "partial human transcript ignored");
                return None;
            }
            Some(Input::Human {
                speaker: chunk.speaker.unwrap_or_else(|| "human".to_owned()),
                text,
                heard: node_kit::DoraMeta(params).heard(),
            })
        }
        participant => Some(Input::Text {
            from: participant.to_owned(),
            text,
            status: chunk.status,
            question_id: chunk.question_id,
        }),
    }
}

/// Sends the core's decisions.
pub fn emit(node: &mut DoraNode, actions: Vec<Output>) -> eyre::Result<()> {
    for action in actions {
        match action {
            Output::Hold { onset_us } => {
                tracing::info!("the human speaks: the agents' voice is held");
                node_kit::send(
                    node,
                    Pause {
                        onset_sent_us: onset_us,
                    },
                )?;
            }
            Output::Prepare { speaker, ahead_of } => {
                tracing::debug!(%speaker, ?ahead_of, "a speaker prepares");
                node_kit::send(node, Prepare { speaker, ahead_of })?;
            }
            Output::Resume => {
                tracing::info!("no question: the held voice goes on");
                node_kit::send(node, Resume)?;
            }
            Output::Turn {
                speaker,
                question_id,
            } => {
                tracing::info!(%speaker, question_id, "turn");
                let turn = Turn {
                    question_id,
                    speaker,
                    ..Turn::default()
                };
                node_kit::send(node, turn)?;
            }
            Output::Interrupt { kind, question_id } => {
                tracing::info!(kind = kind.as_str(), question_id, "interrupt");
                node_kit::send(node, Interrupt::new(kind, question_id))?;
            }
            Output::Status(stats) => {
                node_kit::send(node, stats.to_status())?;
            }
            Output::Utterance(u) => {
                let utterance = Utterance {
                    heard: u.heard,
                    question_id: u.question_id,
                    speaker: u.speaker,
                    text: u.text,
                    interrupted: u.interrupted,
                    human: u.human,
                };
                node_kit::send(node, utterance)?;
            }
            Output::Notice(notice) => node_kit::conduct::log_notice(notice.level(), &notice),
        }
    }
    Ok(())
}
