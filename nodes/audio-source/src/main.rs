//! `audio-source`: the human as a microphone would hear them. Streams `audio` (Float32
//! blocks, metadata `sample_rate`) continuously in real time: silence, and the script's
//! lines spoken by espeak-ng (or a `.wav` file when a line's text names one) at their
//! moments (`during_turn`, from the controller's `turn` input, or `at_secs`).

use std::time::{Duration, Instant};

use audio_utils::{Pcm, decode_wav, resample};
use crossbeam_channel::select;
use dora_node_api::{DoraNode, Event as DoraEvent};
use eyre::{Context, bail, eyre};
use human_script::{HumanAction, HumanScript, parse_script};
use node_kit::Params;
use voice_protocol::{ids, keys};

fn main() -> eyre::Result<()> {
    node_kit::init_tracing();
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
    let block_ms: u64 = node_kit::env_parse("BLOCK_MS", 20)?;
    let voice = node_kit::env_opt("HUMAN_VOICE").unwrap_or_else(|| "en-us+m7".to_owned());
    let path = node_kit::env_opt("HUMAN_SCRIPT")
        .ok_or_else(|| eyre!("HUMAN_SCRIPT is not set (a YAML script of lines)"))?;
    let yaml = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read HUMAN_SCRIPT file {path:?}"))?;
    let mut lines = parse_script(&yaml).map_err(|e| eyre!("{path}: {e}"))?;
    // Prepare every clip up front so a line sounds the moment it is due.
    let mut clips = Vec::with_capacity(lines.len());
    for line in &mut lines {
        let pcm = if line.text.trim().ends_with(".wav") {
            decode_wav(
                &std::fs::read(line.text.trim())
                    .with_context(|| format!("cannot read {}", line.text))?,
            )?
        } else {
            speak(&voice, &line.text)?
        };
        let samples = resample(&pcm.samples, pcm.sample_rate, rate);
        line.speak_ms = Some(samples.len() as u64 * 1000 / u64::from(rate));
        clips.push(samples);
    }
    tracing::info!(lines = clips.len(), rate, "scripted human voice ready");

    let (mut node, events) = DoraNode::init_from_env().context("failed to start the dora node")?;
    let dora_events = node_kit::forward_events(events);
    let mut script = HumanScript::new(lines);
    let block_len = (u64::from(rate) * block_ms / 1000) as usize;
    let block_time = Duration::from_millis(block_ms);
    let start = Instant::now();
    let mut blocks: u32 = 0;
    let mut playing: Option<(usize, usize)> = None;
    loop {
        let wait = (start + block_time * blocks).saturating_duration_since(Instant::now());
        select! {
            recv(dora_events) -> event => match event {
                Ok(DoraEvent::Input { id, .. }) if id.as_str() == ids::TURN => script.on_turn(start.elapsed()),
                Ok(DoraEvent::Input { id, .. }) => tracing::warn!(input = %id, "unknown input ignored"),
                Ok(DoraEvent::Stop(_)) | Err(_) => break,
                Ok(_) => {}
            },
            default(wait) => {
                for action in script.poll(start.elapsed()) {
                    if let HumanAction::SpeechStarted { line, .. } = action {
                        tracing::info!(line, "the human speaks");
                        playing = Some((line, 0));
                    }
                }
                let mut block = vec![0.0f32; block_len];
                if let Some((line, pos)) = playing.as_mut() {
                    let clip = &clips[*line];
                    let n = (clip.len() - *pos).min(block_len);
                    block[..n].copy_from_slice(&clip[*pos..*pos + n]);
                    *pos += n;
                    if *pos >= clip.len() {
                        playing = None;
                    }
                }
                node.send_output(ids::AUDIO.into(), Params::new().int(keys::SAMPLE_RATE, i64::from(rate)).build(), block)?;
                blocks += 1;
            }
        }
    }
    Ok(())
}

fn speak(voice: &str, text: &str) -> eyre::Result<Pcm> {
    let output = std::process::Command::new("espeak-ng")
        .args(["-v", voice, "--stdout", text])
        .output()
        .context("cannot run espeak-ng (run scripts/setup.sh)")?;
    if !output.status.success() {
        bail!("espeak-ng failed for the human's line {text:?}");
    }
    Ok(decode_wav(&output.stdout)?)
}
