//! One dora input: transcript lines, the player's reports, the voices' and the microphone's
//! audio, decisions, auction events.

use serde_json::Value;
use voice_protocol::messages::{AuctionEvent, Board, ModeratorDecision, RehearsalPhase};

use crate::to_pages::{line_msg, msg};
use crate::*;

impl Console {
    /// One dora input.
    pub fn input(&mut self, id: &str, data: Data<'_>, meta: &Meta, now: u64) -> Vec<PageOutput> {
        *self.inputs_seen.entry(shorten_id(id)).or_default() += 1;
        let text = match data {
            Data::Text(t) => Some(t),
            _ => None,
        };
        let mut out = Vec::new();
        match id {
            "status" => match text.map(shares::parse_status) {
                Some(Ok(status)) => {
                    self.policy.status = Some(status);
                    out.push(PageOutput::Broadcast(self.policy_msg()));
                }
                Some(Err(problem)) => {
                    out.push(PageOutput::Warning(format!("a status ignored: {problem}")))
                }
                None => out.push(PageOutput::Warning(
                    "a status that is not text ignored".to_owned(),
                )),
            },
            "utterance" => {
                if let Some(text) = text {
                    self.utterance(text, meta, now, &mut out);
                }
            }
            "turn" => {
                let speaker = meta
                    .speaker
                    .clone()
                    .or_else(|| text.map(str::to_owned))
                    .unwrap_or_default();
                if let Some(q) = meta.question_id {
                    if self.latency.turn(q, &speaker, now) {
                        out.push(PageOutput::Broadcast(self.latency_msg()));
                    }
                    self.voices.next_speaker = Some((speaker, q));
                    out.push(PageOutput::Broadcast(self.speaking_msg()));
                }
            }
            "interrupt" => {
                let kind = text.unwrap_or_default().trim();
                // Question 0 is older than anything: a no-op (test keep-alives).
                if meta.question_id.is_some_and(|q| q > 0) {
                    let line = self.push_line(
                        "interrupt",
                        String::new(),
                        meta.question_id,
                        page::shorten(kind, 20),
                        now,
                    );
                    out.push(PageOutput::Broadcast(line));
                }
            }
            "playback_started" => {
                let speaker = meta
                    .speaker
                    .clone()
                    .or_else(|| text.map(str::to_owned))
                    .unwrap_or_default();
                let q = meta.question_id.unwrap_or(0);
                if self.latency.voice_started(q, &speaker, now) {
                    out.push(PageOutput::Broadcast(self.latency_msg()));
                }
                if self
                    .voices
                    .next_speaker
                    .as_ref()
                    .is_some_and(|(_, nq)| *nq == q)
                {
                    self.voices.next_speaker = None;
                }
                self.voices.speaking = Some((speaker, q));
                out.push(PageOutput::Broadcast(self.speaking_msg()));
            }
            "playback_done" | "played" => {
                let report = PlayedReport {
                    interrupted: meta.interrupted.unwrap_or(false),
                    chars: meta.chars_played.and_then(|c| usize::try_from(c).ok()),
                };
                if let Some(q) = meta.question_id {
                    self.played(q, text.unwrap_or_default(), report, &mut out);
                }
                if self.latency.voice_done(meta.question_id, now) {
                    out.push(PageOutput::Broadcast(self.latency_msg()));
                }
                if self.voices.speaking.as_ref().map(|s| s.1) == meta.question_id {
                    self.voices.speaking = None;
                    out.push(PageOutput::Broadcast(self.speaking_msg()));
                }
            }
            "audio" => {
                if let Data::Samples(samples) = data {
                    self.voice_audio(samples, meta, now, &mut out);
                }
            }
            "human_audio" | "mic" => {
                if let Data::Samples(samples) = data {
                    self.human_audio(samples, now, &mut out);
                }
            }
            "speech_started" => {
                self.latency.speech_started(now);
                self.voices.human_speaking = true;
                out.push(PageOutput::Broadcast(self.speaking_msg()));
            }
            "transcript" => {
                self.latency.human_words(false, now);
                out.push(PageOutput::Broadcast(self.latency_msg()));
                self.voices.human_speaking = false;
                out.push(PageOutput::Broadcast(self.speaking_msg()));
            }
            "backchannel" => {
                self.voices.human_speaking = false;
                if self.latency.backchannel() {
                    out.push(PageOutput::Broadcast(self.latency_msg()));
                }
                let speaker = meta
                    .speaker
                    .clone()
                    .unwrap_or_else(|| self.config.human_speaker.clone());
                let line = self.push_line(
                    "backchannel",
                    speaker,
                    None,
                    text.unwrap_or_default().trim().to_owned(),
                    now,
                );
                out.push(PageOutput::Broadcast(line));
                out.push(PageOutput::Broadcast(self.speaking_msg()));
            }
            "decision" => {
                if let Some(text) = text {
                    self.decision(text, now, &mut out);
                }
            }
            "auction" => {
                if let Some(text) = text {
                    self.auction(text, now, &mut out);
                }
            }
            "board" => match Board::parse(text.unwrap_or_default()) {
                Ok(Board(board)) => {
                    out.push(PageOutput::Broadcast(msg(
                        "board",
                        Value::Object(board.clone()),
                    )));
                    self.board = Some(board);
                }
                Err(problem) => out.push(PageOutput::Warning(format!("{problem}; ignored"))),
            },
            "phase" => match RehearsalPhase::from_name(text.unwrap_or_default()) {
                Some(phase) => {
                    let phase = phase.name().to_owned();
                    self.policy.phase = Some(phase.clone());
                    let line = self.push_line("phase", String::new(), None, phase, now);
                    out.push(PageOutput::Broadcast(line));
                    out.push(PageOutput::Broadcast(self.policy_msg()));
                }
                None => out.push(PageOutput::Warning(format!(
                    "an unknown phase ignored: {}",
                    voice_protocol::shorten(text.unwrap_or_default())
                ))),
            },
            _ if id == "text" || id.starts_with("text_") => {
                if let Some(q) = meta.question_id
                    && text.is_some_and(|t| !t.trim().is_empty())
                    && self.latency.token(q, now)
                {
                    out.push(PageOutput::Broadcast(self.latency_msg()));
                }
            }
            other => out.push(PageOutput::Warning(format!(
                "unknown input {:?} ignored",
                other.chars().take(64).collect::<String>()
            ))),
        }
        out
    }

    pub(crate) fn utterance(
        &mut self,
        text: &str,
        meta: &Meta,
        now: u64,
        out: &mut Vec<PageOutput>,
    ) {
        let speaker = meta.speaker.clone().unwrap_or_default();
        let human = meta.is_human.unwrap_or(false);
        let kind = if human {
            "human"
        } else if speaker == "moderator" {
            "moderator"
        } else {
            "agent"
        };
        let seq = self.next_seq;
        let line = Line {
            seq,
            kind,
            speaker,
            question_id: meta.question_id,
            text: text.to_owned(),
            played: None,
            cut: None,
            interrupted: meta.interrupted.unwrap_or(false),
            at_ms: now,
        };
        self.next_seq += 1;
        self.lines.push_back(line);
        self.trim_lines();
        if !human
            && let Some(q) = meta.question_id
            && let Some((played, report)) = self.early_played.remove(&q)
        {
            self.played(q, &played, report, out);
        }
        if let Some(line) = self.lines.iter().find(|l| l.seq == seq) {
            out.push(PageOutput::Broadcast(line_msg(line)));
        }
        if human {
            self.voices.human_speaking = false;
            out.push(PageOutput::Broadcast(self.speaking_msg()));
        }
    }

    /// The player reported what was heard of question `q`.
    pub(crate) fn played(
        &mut self,
        q: u64,
        played: &str,
        report: PlayedReport,
        out: &mut Vec<PageOutput>,
    ) {
        let Some(line) = self
            .lines
            .iter_mut()
            .rev()
            .find(|l| l.question_id == Some(q) && l.kind != "human" && l.kind != "interrupt")
        else {
            self.early_played.insert(q, (played.to_owned(), report));
            if self.early_played.len() > 64
                && let Some(&oldest) = self.early_played.keys().min()
            {
                self.early_played.remove(&oldest);
            }
            return;
        };
        let (heard, cut) = split_heard(&line.text, played, report.chars);
        line.interrupted |= report.interrupted;
        line.played = Some(heard);
        line.cut = (line.interrupted && !cut.is_empty()).then_some(cut);
        out.push(PageOutput::Broadcast(line_msg(line)));
    }

    pub(crate) fn voice_audio(
        &mut self,
        samples: &[f32],
        meta: &Meta,
        now: u64,
        out: &mut Vec<PageOutput>,
    ) {
        let (rms, peak) = levels(samples);
        if self.latency.voice_block(meta.question_id, rms, now) {
            out.push(PageOutput::Broadcast(self.latency_msg()));
        }
        if self.level_due("voice", now) {
            out.push(PageOutput::Broadcast(msg(
                "level",
                serde_json::json!({
                    "source": "voice",
                    "speaker": meta.speaker,
                    "rms": round3(rms),
                    "peak": round3(peak),
                }),
            )));
        }
        if !self.listeners.is_empty()
            && let Ok(rate) = voice_rate(meta.sample_rate)
        {
            out.push(PageOutput::Audio {
                frame: page::encode_audio(rate, samples),
                to: self.listeners.iter().copied().collect(),
            });
        }
    }

    pub(crate) fn human_audio(&mut self, samples: &[f32], now: u64, out: &mut Vec<PageOutput>) {
        let (rms, peak) = levels(samples);
        self.latency.human_audio(rms, now);
        if self.level_due("human", now) {
            out.push(PageOutput::Broadcast(msg(
                "level",
                serde_json::json!({
                    "source": "human",
                    "speaker": self.config.human_speaker,
                    "rms": round3(rms),
                    "peak": round3(peak),
                }),
            )));
        }
    }

    pub(crate) fn level_due(&mut self, source: &'static str, now: u64) -> bool {
        let due = self
            .last_level
            .get(source)
            .is_none_or(|&t| now.saturating_sub(t) >= self.config.level_interval_ms || now < t);
        if due {
            self.last_level.insert(source, now);
        }
        due
    }

    pub(crate) fn decision(&mut self, text: &str, now: u64, out: &mut Vec<PageOutput>) {
        let decision = match ModeratorDecision::parse(text) {
            Ok(decision) => decision,
            Err(problem) => return out.push(PageOutput::Warning(format!("{problem}; ignored"))),
        };
        let mut summary = decision.action.clone();
        if let Some(target) = decision.target.as_deref().filter(|t| !t.is_empty()) {
            summary.push_str(" → ");
            summary.push_str(target);
        }
        if !decision.reason.is_empty() {
            summary.push_str(": ");
            summary.push_str(&decision.reason);
        }
        let summary = page::shorten(&summary, 300);
        self.policy.last_decision = Some(summary.clone());
        self.policy.moderator_action = (!decision.action.is_empty()).then_some(decision.action);
        self.policy.phase = Some(decision.next_phase.unwrap_or(decision.phase));
        let line = self.push_line("decision", "moderator".to_owned(), None, summary, now);
        out.push(PageOutput::Broadcast(line));
        out.push(PageOutput::Broadcast(self.policy_msg()));
    }

    pub(crate) fn auction(&mut self, text: &str, now: u64, out: &mut Vec<PageOutput>) {
        let record = match AuctionEvent::parse(text) {
            Ok(record) => record,
            Err(problem) => return out.push(PageOutput::Warning(format!("{problem}; ignored"))),
        };
        match record.event() {
            "bid" => {
                if let Some(agent) = record.agent() {
                    let entry = self.policy.auction.entry(agent.to_owned()).or_default();
                    entry.bid = record.bid();
                    entry.tokens = record.tokens().or(entry.tokens);
                    out.push(PageOutput::Broadcast(self.policy_msg()));
                }
            }
            "segment" | "timing" | "bid_fallback" => {}
            event => {
                for (agent, tokens) in record.tokens_left() {
                    self.policy
                        .auction
                        .entry(agent.to_owned())
                        .or_default()
                        .tokens = Some(tokens);
                }
                let summary = auction_summary(&record);
                self.policy.last_decision = Some(summary.clone());
                let line = self.push_line("auction", event.to_owned(), None, summary, now);
                out.push(PageOutput::Broadcast(line));
                out.push(PageOutput::Broadcast(self.policy_msg()));
            }
        }
    }
}

/// Splits a line's text into what was heard and what was cut: by the heard text when
/// the line starts with it, else by the character count.
pub fn split_heard(text: &str, played: &str, chars: Option<usize>) -> (String, String) {
    if !played.is_empty() && text.starts_with(played) {
        return (played.to_owned(), text[played.len()..].to_owned());
    }
    let n = chars.unwrap_or_else(|| played.chars().count());
    let cut_at = text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    if played.is_empty() && chars.is_none() {
        return (String::new(), text.to_owned());
    }
    (text[..cut_at].to_owned(), text[cut_at..].to_owned())
}

/// RMS and peak of a block (0 for an empty one; non-finite samples count as 0).
pub fn levels(samples: &[f32]) -> (f32, f32) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let mut sum = 0.0f64;
    let mut peak = 0.0f32;
    for &s in samples {
        let s = if s.is_finite() { s } else { 0.0 };
        sum += f64::from(s) * f64::from(s);
        peak = peak.max(s.abs());
    }
    ((sum / samples.len() as f64).sqrt() as f32, peak)
}

pub(crate) fn voice_rate(rate: Option<i64>) -> Result<u32, ()> {
    match rate {
        Some(r) if (4_000..=384_000).contains(&r) => Ok(r as u32),
        _ => Err(()),
    }
}

pub(crate) fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

pub(crate) fn shorten_id(id: &str) -> String {
    page::shorten(id, 40)
}

pub(crate) fn auction_summary(record: &AuctionEvent) -> String {
    let parts: Vec<String> = record
        .details()
        .filter(|(_, v)| !v.is_null())
        .take(6)
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            format!("{k}={}", page::shorten(&v, 60))
        })
        .collect();
    page::shorten(&format!("{} {}", record.event(), parts.join(" ")), 300)
}
