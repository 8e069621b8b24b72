//! `session-recorder`: prints who says what and writes `transcript.jsonl` and
//! `events.jsonl` into the session folder, one flushed line at a time, so a crash loses
//! nothing already said.
//!
//! Folder: see [`node_kit::session`].
//!
//! With `AGENTS` (agent names) and `AGENTS_ROOT` (the folder holding `templates/` and
//! `session-templates/`) the folder also holds the conversation's agent-context session,
//! `context/`, frozen at the end: see [`context`].
//!
//! Optional input `auction`: event records of a conductor (one JSON object each), written
//! to `events.jsonl` as they are with `t_ms` added.

mod context;

use std::{
    fs::{File, OpenOptions},
    io::Write,
    path::Path,
    time::Instant,
};

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use node_kit::{DoraMeta, Next, next_event, text_of};
use session_log::{Observed, Record, SessionLog};
use voice_protocol::ids;
use voice_protocol::messages::{Chunk, Message, Played, Utterance};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (node, mut events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dataflow_id = node.dataflow_id().to_string();
    let dir = node_kit::session::session_folder(&dataflow_id)?;
    let agent_context = context::ContextSession::from_env(&dir, &dataflow_id)?;
    let mut transcript = open_append(&dir.join("transcript.jsonl"))?;
    let mut events_file = open_append(&dir.join("events.jsonl"))?;
    tracing::info!(folder = %dir.display(), "recording the session");
    let start = Instant::now();
    // Spoken session (a `played` input from the player is wired): lines wait for what
    // was heard. `SPOKEN` overrides the detection.
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYED);
    let spoken = node_kit::env_parse("SPOKEN", wired)?;
    let mut log = if spoken {
        SessionLog::spoken()
    } else {
        SessionLog::new()
    };
    let mut stdout = std::io::stdout();
    let mut other_inputs = std::collections::BTreeSet::new();
    loop {
        let observed = match next_event(&mut events, None) {
            Next::Closed | Next::Timeout => break,
            Next::Event(event) => match *event {
                DoraEvent::Input { id, metadata, data } => {
                    let params = &metadata.parameters;
                    let text = match text_of(&data) {
                        Ok(text) => text,
                        Err(e) => {
                            tracing::warn!(input = %id, error = %e, "unreadable input ignored");
                            continue;
                        }
                    };
                    if id.as_str() == ids::AUCTION {
                        // A conductor's event record (JSON object): written as it is,
                        // stamped with the session time.
                        match serde_json::from_str::<serde_json::Value>(&text) {
                            Ok(serde_json::Value::Object(mut record)) => {
                                record.insert(
                                    "t_ms".into(),
                                    (start.elapsed().as_millis() as u64).into(),
                                );
                                let line = serde_json::Value::Object(record).to_string();
                                writeln!(events_file, "{line}")
                                    .and_then(|_| events_file.flush())
                                    .context("cannot write the session folder")?;
                            }
                            _ => tracing::warn!(
                                input = %id,
                                text = %voice_protocol::shorten(&text),
                                "event record is not a JSON object; ignored"
                            ),
                        }
                        continue;
                    }
                    let question_id = node_kit::question_id(params).unwrap_or(0);
                    match id.as_str() {
                        ids::TURN => Observed::Turn {
                            speaker: text,
                            question_id,
                        },
                        ids::INTERRUPT => Observed::Interrupt {
                            kind: text,
                            question_id,
                        },
                        ids::UTTERANCE => {
                            let Ok(u) = Utterance::decode(&DoraMeta(params), text) else {
                                continue;
                            };
                            Observed::Utterance {
                                human: u.human,
                                interrupted: u.interrupted,
                                speaker: u.speaker,
                                text: u.text,
                                question_id: u.question_id,
                            }
                        }
                        ids::PLAYED => {
                            let Ok(played) = Played::decode(&DoraMeta(params), text) else {
                                continue;
                            };
                            Observed::Played {
                                question_id,
                                interrupted: played.interrupted,
                                heard: played.text,
                            }
                        }
                        ids::PLAYBACK_STARTED => Observed::PlaybackStarted { question_id },
                        ids::DECISION => Observed::Decision { detail: text },
                        other => {
                            // Any other input: surface reported errors, ignore the rest
                            // (named once per input, so a wired report stream is no noise).
                            match Chunk::decode(&DoraMeta(params), Ok(text)).map(|c| c.error) {
                                Ok(Some(message)) => Observed::Error {
                                    source: other.to_owned(),
                                    message,
                                },
                                _ => {
                                    if other_inputs.insert(other.to_owned()) {
                                        tracing::warn!(
                                            input = other,
                                            "unknown input: only its `error` reports are recorded; the rest is ignored"
                                        );
                                    }
                                    continue;
                                }
                            }
                        }
                    }
                }
                DoraEvent::InputClosed { id } if id.as_str() == ids::PLAYED => {
                    tracing::info!(
                        "the player's reports ended (stopped or gone); waiting lines are written now"
                    );
                    Observed::PlayerGone
                }
                DoraEvent::Stop(_) => break,
                _ => continue,
            },
        };
        for record in log.observe(observed, start.elapsed().as_millis() as u64) {
            let file = match &record {
                Record::Transcript(line) => {
                    if let Some(context) = &agent_context {
                        context.record(line);
                    }
                    &mut transcript
                }
                Record::Event(_) => &mut events_file,
            };
            writeln!(file, "{}", record.to_json())
                .and_then(|_| file.flush())
                .context("cannot write the session folder")?;
            if let Some(line) = record.console_line() {
                let _ = writeln!(stdout, "{line}");
                let _ = stdout.flush();
            }
        }
    }
    for record in log.flush() {
        if let (Some(context), Record::Transcript(line)) = (&agent_context, &record) {
            context.record(line);
        }
        writeln!(transcript, "{}", record.to_json())
            .and_then(|_| transcript.flush())
            .context("cannot write the session folder")?;
        if let Some(line) = record.console_line() {
            let _ = writeln!(stdout, "{line}");
        }
    }
    if let Some(context) = &agent_context {
        context.freeze();
    }
    Ok(())
}

fn open_append(path: &Path) -> eyre::Result<File> {
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("cannot open {}", path.display()))
}
