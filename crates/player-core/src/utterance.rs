//! An utterance in the player's queue: its segments as they arrive (text, then audio),
//! where playback is, and what of it was heard.

use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub(crate) struct SegmentSlot {
    pub(crate) text: String,
    pub(crate) audio: Option<Vec<f32>>,
    pub(crate) failed: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Utterance {
    pub(crate) speaker: String,
    pub(crate) segments: BTreeMap<u32, SegmentSlot>,
    pub(crate) last_index: Option<u32>,
    pub(crate) playing_index: u32,
    pub(crate) position: usize,
    pub(crate) started_at: Option<u64>,
    pub(crate) chars_played: usize,
    pub(crate) text_played: String,
}

impl Utterance {
    pub(crate) fn finished(&self) -> bool {
        self.last_index
            .is_some_and(|last| self.playing_index > last)
    }

    /// What was heard of the current segment up to `position`, cut at a word boundary
    /// so that the context gets whole words.
    pub(crate) fn partial(&self) -> Option<String> {
        let slot = self.segments.get(&self.playing_index)?;
        let audio = slot.audio.as_ref()?;
        if audio.is_empty() || self.position == 0 {
            return None;
        }
        let fraction = self.position as f64 / audio.len() as f64;
        let total = slot.text.chars().count();
        let heard = ((total as f64) * fraction).round() as usize;
        let prefix: String = slot.text.chars().take(heard).collect();
        let cut = match prefix.rfind(char::is_whitespace) {
            Some(i) if heard < total => &prefix[..i],
            _ => prefix.as_str(),
        };
        Some(cut.trim_end().to_owned())
    }

    /// Counts what was heard of the current segment up to `position`.
    pub(crate) fn credit_partial(&mut self) {
        if let Some(partial) = self.partial() {
            self.push_played(&partial);
        }
    }

    /// Everything heard so far: the segments played and the current one up to
    /// `position`.
    pub(crate) fn heard_so_far(&self) -> String {
        match self.partial().filter(|p| !p.is_empty()) {
            Some(partial) if self.text_played.is_empty() => partial,
            Some(partial) => format!("{} {partial}", self.text_played),
            None => self.text_played.clone(),
        }
    }

    pub(crate) fn push_played(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if !self.text_played.is_empty() {
            self.text_played.push(' ');
        }
        self.text_played.push_str(text);
        self.chars_played += text.chars().count();
    }
}
