//! `conference-controller`: Arrow in → [`conference_core`] → Arrow out.
//!
//! Inputs: one per participant (its text), `human`, `human_text` (optional: typed words,
//! e.g. from the console, taken exactly like `human`), `speech_started` and `backchannel`
//! (the voice detector's: the human's floor), `control`, `playback_done` (optional, from
//! the player).
//! Outputs: `turn`, `interrupt`, `status`, `utterance`, and `pause` / `resume` for the
//! player (the human's floor held and released). See docs/ARCHITECTURE.md.

use std::{cell::RefCell, time::Instant};

use conference_core::{CONTROLLER_FORMAT, Conference, ControllerSetup, Input, NoticeLevel, Output};
use dora_node_api::DoraNode;
use eyre::{Context, bail, eyre};
use node_kit::HeardSpan;
use node_kit::conduct::{Conversions, Received};
use node_kit::decisions::{DecisionWriter, RecordedConductor};
use turn_policy::{Policy, Viability};
use voice_protocol::messages::{Interrupt, Meta, Pause, Plain, Prepare, Resume, Turn, Utterance};
use voice_protocol::{ControlCommand, StreamStatus, ids, shorten};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let pattern = std::env::var("DORA_POLICY_PATTERN").map_err(|_| {
        eyre!(
            "DORA_POLICY_PATTERN is not set; e.g. \"[(human, 0.001), (tutor, *), (student1, 1)]\""
        )
    })?;
    let policy = Policy::parse(&pattern).map_err(|e| eyre!("DORA_POLICY_PATTERN: {e}"))?;
    let secs_ms = |key: &str, default: f64| -> eyre::Result<u64> {
        Ok(node_kit::env_secs(key, default)?.as_millis() as u64)
    };
    let mut setup = ControllerSetup {
        pattern: pattern.clone(),
        humans: node_kit::env_opt("HUMAN_PARTICIPANTS")
            .map(|v| {
                v.split(',')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        turn_timeout_ms: secs_ms("TURN_TIMEOUT_SECS", 60.0)?,
        human_timeout_ms: secs_ms(
            "HUMAN_TIMEOUT_SECS",
            conference_core::HOLD_LIMIT.as_secs_f64(),
        )?,
        max_unplayed: node_kit::env_opt("MAX_UNPLAYED_TURNS")
            .map(|v| v.trim().parse::<usize>())
            .transpose()
            .map_err(|e| eyre!("MAX_UNPLAYED_TURNS is not a whole number: {e}"))?,
        // 0 turns off the retry: a silent participant then only returns by speaking.
        absent_retry_turns: Some(node_kit::env_parse::<u32>("ABSENT_RETRY_TURNS", 8)?),
        turn_resend_ms: conference_core::TURN_RESEND.as_millis() as u64,
    };
    // The core's own rule for it (0: never).
    if let Some(value) = node_kit::env_opt("TURN_RESEND_SECS") {
        setup.set("TURN_RESEND_SECS", &value)?;
    }
    tracing::info!(policy = %policy, mode = policy.mode_name(), "conference controller starting");

    let engine = setup.engine()?;
    match engine.viability() {
        Viability::Conversation => {}
        Viability::OneSpeaker(name) => tracing::warn!(
            participant = %name,
            "only `{name}` can be handed the turn and never twice in a row: after each of its turns the conversation waits for a human"
        ),
        Viability::NoTurns => bail!(
            "DORA_POLICY_PATTERN {pattern:?} names no participant the controller can hand the turn to (humans take the floor by speaking); add an agent"
        ),
    }

    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    warn_about_wiring(&node);
    // Which inputs each upstream node feeds: a restarted node restarts those inputs.
    let sources = node_kit::InputSources::of(&node);
    let start = Instant::now();
    let now = || start.elapsed().as_millis() as u64;
    // Every call of the core, recorded for `replay` (docs/ARCHITECTURE.md, "Record and
    // replay").
    let session = node_kit::session::session_folder(&node.dataflow_id().to_string())?;
    let log = DecisionWriter::open(&session, node.id().as_ref(), CONTROLLER_FORMAT, &setup);
    let mut conference = RecordedConductor::new(Conference::new(engine, setup.config()), (), log);
    // What the player is told besides the core's decisions, noted as the inputs come.
    let notes = RefCell::new(Notes::default());
    let mut conversions = Conversions {
        decode: |input: Received<'_>| {
            notes.borrow_mut().observe(&input);
            to_core_input(input.id, input.params, input.data)
        },
        restarted: |input: &str| Input::Restarted {
            input: input.to_owned(),
        },
        closed: |input: &str| {
            Some(Input::InputClosed {
                input: input.to_owned(),
            })
        },
        emit: |actions| emit(&mut node, actions, &mut notes.borrow_mut()),
    };
    let ending = node_kit::conduct::run(
        &mut conference,
        &mut events,
        &sources,
        now,
        &mut conversions,
    )?;
    tracing::debug!(?ending, "controller loop over");
    tracing::info!(stats = %conference.conductor.status().to_json(), "conference controller stopped");
    Ok(())
}

/// What the player is told besides the core's decisions, from the inputs' metadata.
#[derive(Default)]
struct Notes {
    /// When the voice detector sent the last `speech_started` (µs since the Unix epoch):
    /// the player's `pause` carries it, so onset → silence is measured over both hops.
    onset_sent_us: Option<i64>,
    /// When the human's last transcript was spoken: passed on with their utterance (the
    /// player puts them on the recording's clock).
    heard: Option<HeardSpan>,
}

impl Notes {
    fn observe(&mut self, input: &Received<'_>) {
        match input.id {
            ids::HUMAN => self.heard = node_kit::DoraMeta(input.params).heard(),
            ids::SPEECH_STARTED => {
                self.onset_sent_us = input
                    .sent
                    .duration_since(std::time::UNIX_EPOCH)
                    .ok()
                    .map(|d| d.as_micros() as i64);
            }
            _ => {}
        }
    }
}

/// What a participant of this dataflow lacks (its input here, at the segmenter, at the
/// recorder, a bridge, a backpressure queue), told once at start: a forgotten line
/// otherwise fails silently. `dataflow-check F` tells the same before a run.
fn warn_about_wiring(node: &DoraNode) {
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
fn to_core_input(
    id: &str,
    params: &dora_node_api::MetadataParameters,
    data: &dora_node_api::DoraArray,
) -> Option<Input> {
    match id {
        // Their payloads are not read.
        ids::SPEECH_STARTED => return Some(Input::SpeechStarted),
        ids::BACKCHANNEL => return Some(Input::Backchannel),
        ids::PLAYBACK_DONE => {
            return match node_kit::question_id(params) {
                Some(question_id) => Some(Input::PlaybackDone { question_id }),
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
        ids::CONTROL => match ControlCommand::parse(&text) {
            Ok(command) => Some(Input::Control(command)),
            Err(e) => {
                tracing::warn!(error = %e, "control input ignored");
                None
            }
        },
        ids::HUMAN | ids::HUMAN_TEXT => {
            if !StreamStatus::ends_utterance(chunk.status) {
                tracing::debug!(text = %shorten(&text), "partial human transcript ignored");
                return None;
            }
            Some(Input::Human {
                speaker: chunk.speaker.unwrap_or_else(|| "human".to_owned()),
                text,
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

/// Sends the core's decisions, with what `notes` holds for the player.
fn emit(node: &mut DoraNode, actions: Vec<Output>, notes: &mut Notes) -> eyre::Result<()> {
    let heard = notes.heard.take();
    let onset_sent_us = notes.onset_sent_us;
    for action in actions {
        match action {
            Output::Hold => {
                tracing::info!("the human speaks: the agents' voice is held");
                node_kit::send(node, Pause { onset_sent_us })?;
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
                node_kit::send_on(node, ids::STATUS, Plain(stats.to_json()))?;
            }
            Output::Utterance(u) => {
                let utterance = Utterance {
                    heard: heard.clone().filter(|_| u.human),
                    question_id: u.question_id,
                    speaker: u.speaker,
                    text: u.text,
                    interrupted: u.interrupted,
                    human: u.human,
                };
                node_kit::send(node, utterance)?;
            }
            Output::Notice(notice) => match notice.level() {
                NoticeLevel::Warning => tracing::warn!("{notice}"),
                NoticeLevel::Info => tracing::info!("{notice}"),
                NoticeLevel::Debug => tracing::debug!("{notice}"),
            },
        }
    }
    Ok(())
}
