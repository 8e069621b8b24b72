//! What the page sends, and the binary audio frames both ways.
//!
//! Text frames are JSON objects with a `type`:
//! `{"type":"control","command":"cancel"|"ready"|"reset"|"stats"}` (also `pause` =
//! `cancel`, `resume` = `ready`), `{"type":"say","text":"..."}`,
//! `{"type":"mic","on":true|false}`, `{"type":"listen","on":true|false}`,
//! `{"type":"ping"}`.
//! Binary frames are audio: a little-endian `u32` sample rate, then little-endian `f32`
//! mono samples (the page's microphone at 16 kHz; the player's blocks to the page).

use serde_json::Value;

/// The longest message the page may type, in characters.
pub const MAX_SAY_CHARS: usize = 2000;
/// Sample rates the page's microphone may use.
pub const MIC_RATES: std::ops::RangeInclusive<u32> = 8_000..=48_000;

/// A control command as the controller's `control` input takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Cancel,
    Ready,
    Reset,
    Stats,
}

impl Command {
    pub fn as_str(self) -> &'static str {
        match self {
            Command::Cancel => "cancel",
            Command::Ready => "ready",
            Command::Reset => "reset",
            Command::Stats => "stats",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ClientMsg {
    Control(Command),
    Say(String),
    Mic(bool),
    Listen(bool),
    Ping,
}

/// Parses one text frame from the page. Anything else is an `Err` describing it (shown
/// to that page, never a panic).
pub fn parse_client(text: &str) -> Result<ClientMsg, String> {
    let value: Value = serde_json::from_str(text).map_err(|_| "not a JSON message".to_owned())?;
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| "a message needs a string `type`".to_owned())?;
    let flag = || {
        value
            .get("on")
            .and_then(Value::as_bool)
            .ok_or_else(|| format!("`{kind}` needs a boolean `on`"))
    };
    match kind {
        "control" => {
            let command = value
                .get("command")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase();
            let command = match command.as_str() {
                "cancel" | "pause" => Command::Cancel,
                "ready" | "resume" => Command::Ready,
                "reset" => Command::Reset,
                "stats" => Command::Stats,
                other => {
                    return Err(format!(
                        "unknown command `{}` (cancel, ready, reset, stats)",
                        shorten(other, 40)
                    ));
                }
            };
            Ok(ClientMsg::Control(command))
        }
        "say" => {
            let text = value
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| "`say` needs a string `text`".to_owned())?;
            let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
            if text.is_empty() {
                return Err("nothing to say".to_owned());
            }
            if text.chars().count() > MAX_SAY_CHARS {
                return Err(format!("a message is at most {MAX_SAY_CHARS} characters"));
            }
            Ok(ClientMsg::Say(text))
        }
        "mic" => Ok(ClientMsg::Mic(flag()?)),
        "listen" => Ok(ClientMsg::Listen(flag()?)),
        "ping" => Ok(ClientMsg::Ping),
        other => Err(format!("unknown message type `{}`", shorten(other, 40))),
    }
}

/// Decodes a binary audio frame from the page: `(sample_rate, samples)`, samples clamped
/// to -1..=1 (non-finite ones become 0), at most one second per frame.
pub fn decode_audio(frame: &[u8]) -> Result<(u32, Vec<f32>), String> {
    if frame.len() < 8 || !(frame.len() - 4).is_multiple_of(4) {
        return Err(format!(
            "an audio frame is a u32 rate and f32 samples ({} bytes is not)",
            frame.len()
        ));
    }
    let rate = u32::from_le_bytes([frame[0], frame[1], frame[2], frame[3]]);
    if !MIC_RATES.contains(&rate) {
        return Err(format!(
            "sample rate {rate} is outside {}..={} Hz",
            MIC_RATES.start(),
            MIC_RATES.end()
        ));
    }
    let count = (frame.len() - 4) / 4;
    if count > rate as usize {
        return Err(format!(
            "{count} samples is more than a second at {rate} Hz"
        ));
    }
    let samples = frame[4..]
        .chunks_exact(4)
        .map(|b| {
            let s = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            if s.is_finite() {
                s.clamp(-1.0, 1.0)
            } else {
                0.0
            }
        })
        .collect();
    Ok((rate, samples))
}

/// The binary frame the page plays: the rate, then the samples.
pub fn encode_audio(rate: u32, samples: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + samples.len() * 4);
    out.extend_from_slice(&rate.to_le_bytes());
    for s in samples {
        out.extend_from_slice(&s.to_le_bytes());
    }
    out
}

/// At most `max` characters, with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_messages_parse() {
        assert_eq!(
            parse_client(r#"{"type":"control","command":"Pause"}"#),
            Ok(ClientMsg::Control(Command::Cancel))
        );
        assert_eq!(
            parse_client(r#"{"type":"control","command":"resume"}"#),
            Ok(ClientMsg::Control(Command::Ready))
        );
        assert_eq!(
            parse_client(r#"{"type":"say","text":"  Can you\n give an example? "}"#),
            Ok(ClientMsg::Say("Can you give an example?".into()))
        );
        assert_eq!(
            parse_client(r#"{"type":"mic","on":true}"#),
            Ok(ClientMsg::Mic(true))
        );
        assert!(parse_client(r#"{"type":"say","text":"   "}"#).is_err());
        assert!(parse_client(r#"{"type":"control","command":"shutdown"}"#).is_err());
        assert!(parse_client(r#"{"type":"mic"}"#).is_err());
        assert!(parse_client("hello").is_err());
        let long = format!(
            r#"{{"type":"say","text":"{}"}}"#,
            "a".repeat(MAX_SAY_CHARS + 1)
        );
        assert!(parse_client(&long).is_err());
    }

    #[test]
    fn audio_frames_round_trip_and_are_sanitized() {
        let frame = encode_audio(16_000, &[0.5, -2.0, f32::NAN, 0.25]);
        let (rate, samples) = decode_audio(&frame).unwrap();
        assert_eq!(rate, 16_000);
        assert_eq!(samples, [0.5, -1.0, 0.0, 0.25]);
        assert!(decode_audio(&[1, 2, 3]).is_err());
        assert!(decode_audio(&encode_audio(1_000, &[0.0])).is_err());
        assert!(decode_audio(&encode_audio(8_000, &vec![0.0; 8_001])).is_err());
        let mut odd = encode_audio(16_000, &[0.0]);
        odd.push(0);
        assert!(decode_audio(&odd).is_err());
    }
}
