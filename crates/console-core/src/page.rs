//! What the page sends, and the binary audio frames both ways.
//!
//! Text frames are JSON objects with a `type`:
//! `{"type":"control","command":"cancel"|"ready"|"reset"|"stats"}` (also `pause` =
//! `cancel`, `resume` = `ready`) for a conference controller, and for a rehearsal
//! moderator `next`, `prev`, `slide N`, `open_qa`, `ack [panelist]`, `answered`,
//! `move_on`, `end`; `{"type":"say","text":"..."}`,
//! `{"type":"mic","on":true|false}`, `{"type":"listen","on":true|false}`,
//! `{"type":"ping"}`.
//! Binary frames are audio: a little-endian `u32` sample rate, then little-endian `f32`
//! mono samples (the page's microphone at 16 kHz; the player's blocks to the page).

use serde_json::Value;

/// The longest message the page may type, in characters.
pub const MAX_SAY_CHARS: usize = 2000;
/// Sample rates the page's microphone may use.
pub const MIC_RATES: std::ops::RangeInclusive<u32> = 8_000..=48_000;

/// The highest slide number a page may name.
pub const MAX_SLIDE: usize = 999;

/// A control command as the decision node's `control` input takes it: the conference
/// controller's, or the rehearsal moderator's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Cancel,
    Ready,
    Reset,
    Stats,
    /// Rehearsal: the presenter's slide controls.
    Next,
    Prev,
    Slide(usize),
    OpenQa,
    /// Rehearsal: take a raised hand (a panelist's id, or the earliest hand).
    Ack(Option<String>),
    Answered,
    MoveOn,
    End,
}

impl Command {
    /// The command as the `control` output carries it.
    pub fn wire(&self) -> String {
        match self {
            Command::Cancel => "cancel".to_owned(),
            Command::Ready => "ready".to_owned(),
            Command::Reset => "reset".to_owned(),
            Command::Stats => "stats".to_owned(),
            Command::Next => "next".to_owned(),
            Command::Prev => "prev".to_owned(),
            Command::Slide(n) => format!("slide {n}"),
            Command::OpenQa => "open_qa".to_owned(),
            Command::Ack(None) => "ack".to_owned(),
            Command::Ack(Some(agent)) => format!("ack {agent}"),
            Command::Answered => "answered".to_owned(),
            Command::MoveOn => "move_on".to_owned(),
            Command::End => "end".to_owned(),
        }
    }

    fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim().to_ascii_lowercase();
        let mut words = text.split_whitespace();
        let word = words.next().unwrap_or_default();
        let argument = words.next();
        if words.next().is_some() {
            return Err(format!("`{}`: too many words", shorten(&text, 40)));
        }
        let bare = |command: Command| match argument {
            None => Ok(command),
            Some(_) => Err(format!("`{word}` takes no argument")),
        };
        match word {
            "cancel" | "pause" => bare(Command::Cancel),
            "ready" | "resume" => bare(Command::Ready),
            "reset" => bare(Command::Reset),
            "stats" => bare(Command::Stats),
            "next" => bare(Command::Next),
            "prev" => bare(Command::Prev),
            "open_qa" => bare(Command::OpenQa),
            "answered" => bare(Command::Answered),
            "move_on" => bare(Command::MoveOn),
            "end" => bare(Command::End),
            "slide" => match argument.map(str::parse::<usize>) {
                Some(Ok(n)) if n <= MAX_SLIDE => Ok(Command::Slide(n)),
                _ => Err(format!("`slide` needs a slide number 0..={MAX_SLIDE}")),
            },
            "ack" => match argument {
                None => Ok(Command::Ack(None)),
                Some(agent)
                    if agent.len() <= 40
                        && agent
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
                {
                    Ok(Command::Ack(Some(agent.to_owned())))
                }
                Some(_) => Err("`ack` takes a panelist's id (letters, digits, _ and -)".to_owned()),
            },
            other => Err(format!(
                "unknown command `{}` (cancel, ready, reset, stats; next, prev, slide N, open_qa, ack, answered, move_on, end)",
                shorten(other, 40)
            )),
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
                .unwrap_or_default();
            Ok(ClientMsg::Control(Command::parse(command)?))
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
        let control = |command: &str| {
            parse_client(&serde_json::json!({"type": "control", "command": command}).to_string())
        };
        for (command, wire) in [
            ("next", "next"),
            ("Slide 3", "slide 3"),
            ("open_qa", "open_qa"),
            ("ack", "ack"),
            ("ack skeptic", "ack skeptic"),
            ("answered", "answered"),
            ("move_on", "move_on"),
            ("end", "end"),
        ] {
            match control(command) {
                Ok(ClientMsg::Control(c)) => assert_eq!(c.wire(), wire),
                other => panic!("{command}: {other:?}"),
            }
        }
        for bad in [
            "slide",
            "slide two",
            "slide 1000",
            "ack a b",
            "ack {x}",
            "next 2",
            "",
        ] {
            assert!(control(bad).is_err(), "{bad:?}");
        }
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
