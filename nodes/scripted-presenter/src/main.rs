//! `scripted-presenter`: plays the presenter of a pitch rehearsal from a script (env
//! `PRESENTER_SCRIPT`, YAML; see [`human_script::presenter`]).
//!
//! Inputs: `phase` (the moderator's phase), `utterance` (finished utterances: a
//! panelist's question is answered), optional `played` (the player's `playback_done`: in
//! a spoken session questions count once heard, and the presenter's own lines wait until
//! heard). Outputs: `transcript` (final text, `speaker`, `session_status: ended`),
//! `speech_started`, `control` (`slide N`, `open_qa`, `end`, ...).

use std::time::Instant;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, eyre};
use human_script::presenter::{LineReport, Presenter, PresenterAction, parse_presenter_script};
use node_kit::{Next, Params, next_event, text_of};
use voice_protocol::{SessionStatus, ids, keys};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let path = node_kit::env_opt("PRESENTER_SCRIPT")
        .ok_or_else(|| eyre!("PRESENTER_SCRIPT is not set (a YAML presenter script)"))?;
    let yaml = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read PRESENTER_SCRIPT file {path:?}"))?;
    let script = parse_presenter_script(&yaml).map_err(|e| eyre!("{path}: {e}"))?;
    let moderator = node_kit::env_opt("MODERATOR_NAME")
        .unwrap_or_else(|| human_script::presenter::MODERATOR.to_owned());
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYED);
    let spoken = node_kit::env_parse("SPOKEN", wired)?;
    tracing::info!(
        steps = script.steps.len(),
        spoken,
        "scripted presenter ready"
    );
    let mut presenter = Presenter::new(script, spoken).with_moderator(&moderator);
    let me = presenter.speaker().to_owned();
    let start = Instant::now();
    loop {
        let wait = presenter
            .next_deadline()
            .map(|d| d.saturating_sub(start.elapsed()));
        match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout => {}
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
                    let speaker = node_kit::string_param(params, keys::SPEAKER).unwrap_or("");
                    let now = start.elapsed();
                    match id.as_str() {
                        ids::PHASE => presenter.on_phase(&text, now),
                        ids::UTTERANCE => {
                            presenter.on_line(LineReport::Finished, speaker, &text, now)
                        }
                        ids::PLAYED => presenter.on_line(LineReport::Heard, speaker, &text, now),
                        other => tracing::warn!(input = other, "unknown input ignored"),
                    }
                }
                DoraEvent::Stop(_) => break,
                _ => {}
            },
        }
        for action in presenter.poll(start.elapsed()) {
            match action {
                PresenterAction::SpeechStarted => {
                    let params = Params::new().string(keys::SPEAKER, me.clone()).build();
                    node.send_output(ids::SPEECH_STARTED.into(), params, me.clone())?;
                }
                PresenterAction::Said { text, answer } => {
                    tracing::info!(answer, %text, "presenter said");
                    let params = Params::new()
                        .string(keys::SPEAKER, me.clone())
                        .string(keys::SESSION_STATUS, SessionStatus::Ended.as_str())
                        .build();
                    node.send_output(ids::TRANSCRIPT.into(), params, text)?;
                }
                PresenterAction::Control(command) => {
                    tracing::info!(%command, "presenter control");
                    node.send_output(ids::CONTROL.into(), Default::default(), command)?;
                }
                PresenterAction::Finished => tracing::info!("presenter script finished"),
            }
        }
    }
    Ok(())
}
