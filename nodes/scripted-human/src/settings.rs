//! The scripted human's settings from its environment: the script, the outputs it
//! sends, the voice, the simulated room.

use dora_node_api::DoraNode;
use eyre::{Context, eyre};
use human_script::{ScriptLine, parse_script};
use voice_protocol::ids;

/// How the human's voice is streamed and who speaks it.
pub struct VoiceSettings {
    /// `SAMPLE_RATE` (16000).
    pub rate: u32,
    /// `BLOCK_MS` (20).
    pub block_ms: u64,
    /// `HUMAN_VOICE`: an espeak-ng voice, or `kokoro:<voice>`; `None`: the default one.
    pub voice: Option<String>,
}

pub fn voice_from_env() -> eyre::Result<VoiceSettings> {
    let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
    let block_ms: u64 = node_kit::env_parse("BLOCK_MS", 20)?;
    if rate == 0 || block_ms == 0 {
        return Err(eyre!("SAMPLE_RATE and BLOCK_MS must be above 0"));
    }
    Ok(VoiceSettings {
        rate,
        block_ms,
        voice: node_kit::env_opt("HUMAN_VOICE"),
    })
}

/// `ROOM_ECHO_DB` (below 0; unset or `off`: no room) and `ROOM_ECHO_MS`.
pub fn room_from_env() -> eyre::Result<Option<(u32, f32)>> {
    let gain_db = match node_kit::env_opt("ROOM_ECHO_DB") {
        None => return Ok(None),
        Some(off) if off.trim() == "off" => return Ok(None),
        Some(db) => db
            .trim()
            .parse::<f32>()
            .ok()
            .filter(|db| db.is_finite() && *db <= 0.0)
            .ok_or_else(|| {
                eyre!("ROOM_ECHO_DB={db:?}: expected decibels at or below 0, or `off`")
            })?,
    };
    let delay_ms: u32 = node_kit::env_parse("ROOM_ECHO_MS", 60)?;
    if delay_ms > 2000 {
        return Err(eyre!("ROOM_ECHO_MS={delay_ms}: expected at most 2000"));
    }
    Ok(Some((delay_ms, gain_db)))
}

pub fn read_script() -> eyre::Result<Vec<ScriptLine>> {
    match node_kit::env_opt("HUMAN_SCRIPT") {
        Some(path) => {
            let yaml = std::fs::read_to_string(&path)
                .with_context(|| format!("cannot read HUMAN_SCRIPT file {path:?}"))?;
            parse_script(&yaml).map_err(|e| eyre!("{path}: {e}"))
        }
        None => {
            tracing::warn!("HUMAN_SCRIPT is not set; the scripted human stays silent");
            Ok(Vec::new())
        }
    }
}

/// Whether to send text and voice: `HUMAN_OUTPUTS` when set, else the outputs the
/// dataflow declares (none declared, as in dora's testing mode: text).
pub fn outputs(node: &DoraNode) -> eyre::Result<(bool, bool)> {
    if let Some(list) = node_kit::env_opt("HUMAN_OUTPUTS") {
        let mut chosen = (false, false);
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item {
                "text" => chosen.0 = true,
                "voice" => chosen.1 = true,
                other => {
                    return Err(eyre!(
                        "HUMAN_OUTPUTS: {other:?} is neither `text` nor `voice`"
                    ));
                }
            }
        }
        return Ok(chosen);
    }
    let declared = &node.node_config().outputs;
    let has = |id: &str| declared.iter().any(|d| d.as_str() == id);
    let voice = has(ids::AUDIO);
    let text = has(ids::TRANSCRIPT) || has(ids::SPEECH_STARTED) || !voice;
    Ok((text, voice))
}
