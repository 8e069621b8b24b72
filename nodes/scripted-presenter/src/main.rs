//! `scripted-presenter`: plays the presenter of a pitch rehearsal from a script (env
//! `PRESENTER_SCRIPT`, YAML; see [`human_script::presenter`]), in a style (env
//! `PRESENTER_STYLE`: `plain`, the default, `fast`, `hesitant` or `evasive`).
//!
//! Inputs: `phase` (the moderator's phase), `utterance` (finished utterances: a
//! panelist's question is answered), optional `played` (the player's `playback_done`: in
//! a spoken session questions count once heard, and the presenter's own lines wait until
//! heard). Outputs: `transcript` (final text, `speaker`, `session_status: ended`),
//! `speech_started`, `control` (`slide N`, `open_qa`, `end`, ...).

mod codec;
mod settings;

use std::time::Instant;

use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::Context;
use human_script::presenter::{Presenter, PresenterInput, PresenterOutput};
use node_kit::{Next, next_event};
use voice_protocol::ids;
use voice_protocol::messages::{Control, SpeechStarted, Transcript};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let (mut node, mut events) =
        DoraNode::init_from_env().context("failed to start the dora node")?;
    let played_wired = node
        .node_config()
        .inputs
        .keys()
        .any(|id| id.as_str() == ids::PLAYED);
    let settings::Settings {
        script,
        style,
        moderator,
        spoken,
    } = settings::from_env(played_wired)?;
    tracing::info!(
        steps = script.steps.len(),
        spoken,
        ?style,
        "scripted presenter ready"
    );
    let mut presenter = Presenter::new(script, spoken)
        .with_moderator(&moderator)
        .with_style(style);
    let me = presenter.speaker().to_owned();
    let start = Instant::now();
    loop {
        let wait = presenter
            .next_wake()
            .map(|d| d.saturating_sub(start.elapsed()));
        let input = match next_event(&mut events, wait) {
            Next::Closed => break,
            Next::Timeout => PresenterInput::Tick,
            Next::Event(event) => match *event {
                DoraEvent::Input { id, metadata, data } => {
                    match codec::to_input(id.as_str(), &metadata.parameters, &data) {
                        Some(input) => input,
                        None => continue,
                    }
                }
                DoraEvent::Stop(_) => break,
                _ => PresenterInput::Tick,
            },
        };
        for action in presenter.handle(input, start.elapsed()) {
            match action {
                PresenterOutput::SpeechStarted => {
                    node_kit::send(
                        &mut node,
                        SpeechStarted {
                            speaker: me.clone(),
                        },
                    )?;
                }
                PresenterOutput::Said { text, answer } => {
                    tracing::info!(answer, %text, "presenter said");
                    node_kit::send(&mut node, Transcript::final_words(me.clone(), text))?;
                }
                PresenterOutput::Control(command) => {
                    tracing::info!(%command, "presenter control");
                    node_kit::send(&mut node, Control::new(command))?;
                }
                PresenterOutput::Finished => tracing::info!("presenter script finished"),
            }
        }
    }
    Ok(())
}
