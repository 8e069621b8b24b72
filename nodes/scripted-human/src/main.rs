//! `scripted-human`: plays a human from a script (env `HUMAN_SCRIPT`, a YAML file).
//! Input `turn` (controller); outputs `speech_started` and `transcript`.

use std::time::Instant;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, eyre};
use human_script::{HumanAction, HumanScript, parse_script};
use node_kit::{Next, Params, next_event};
use voice_protocol::{SessionStatus, ids, keys};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let lines = match node_kit::env_opt("HUMAN_SCRIPT") {
        Some(path) => {
            let yaml = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read HUMAN_SCRIPT file {path:?}"))?;
            parse_script(&yaml).map_err(|e| eyre!("{path}: {e}"))?
        }
        None => {
            tracing::warn!("HUMAN_SCRIPT is not set; the scripted human stays silent");
            Vec::new()
        }
    };
    tracing::info!(lines = lines.len(), "scripted human ready");
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let start = Instant::now();
    let mut script = HumanScript::new(lines);
    loop {
        let wait = script
            .next_deadline()
            .map(|d| d.saturating_sub(start.elapsed()));
        match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout => {}
            Next::Event(event) => match *event {
                DoraEvent::Input { id, .. } if id.as_str() == ids::TURN => {
                    script.on_turn(start.elapsed())
                }
                DoraEvent::Input { id, .. } => tracing::warn!(input = %id, "unknown input ignored"),
                DoraEvent::Stop(_) => break,
                _ => {}
            },
        }
        for action in script.poll(start.elapsed()) {
            match action {
                HumanAction::SpeechStarted { speaker, .. } => {
                    tracing::info!(%speaker, "human starts speaking");
                    let params = Params::new().string(keys::SPEAKER, speaker.clone()).build();
                    node.send_output(ids::SPEECH_STARTED.into(), params, speaker)?;
                }
                HumanAction::Transcript { speaker, text, .. } => {
                    tracing::info!(%speaker, %text, "human said");
                    let params = Params::new()
                        .string(keys::SPEAKER, speaker)
                        .string(keys::SESSION_STATUS, SessionStatus::Ended.as_str())
                        .build();
                    node.send_output(ids::TRANSCRIPT.into(), params, text)?;
                }
            }
        }
    }
    Ok(())
}
