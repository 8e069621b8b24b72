//! Which lines of the conversation the model sees, and how much of its cache a new prompt
//! keeps.

/// How many conversation lines a local prompt shows at most, and how many are dropped at
/// once when that is exceeded. Dropping in steps keeps the prompt's beginning identical
/// from one turn to the next, so the model's cache of it can be reused.
#[derive(Debug, Clone)]
pub struct PromptWindow<Line = crate::PromptLine> {
    max_lines: usize,
    hop: usize,
    kept: Vec<Line>,
}

impl<Line: Clone + PartialEq> PromptWindow<Line> {
    /// The window of a bridge that shows at most `max_lines` lines: it drops a third of
    /// them at a time (at least one).
    pub fn of_lines(max_lines: usize) -> Self {
        Self::new(max_lines, (max_lines / 3).max(1))
    }

    pub fn new(max_lines: usize, hop: usize) -> Self {
        let max_lines = max_lines.max(1);
        Self {
            max_lines,
            hop: hop.clamp(1, max_lines),
            kept: Vec::new(),
        }
    }

    /// Forgets the lines shown: the next [`PromptWindow::select`] starts from the newest.
    pub fn clear(&mut self) {
        self.kept.clear();
    }

    /// The lines to show, oldest first: the previous window extended by the lines that
    /// came after its last one; when it grows past `max_lines`, the oldest `hop` lines (or
    /// more) go. When a line of the previous window changed (cut to what was heard when
    /// the human barged in), the window keeps its first line and takes the lines as they
    /// are now from there, so the cache still holds everything before the change. Only
    /// when its first line is gone (the conversation window moved under it) does it
    /// start again from the newest lines.
    pub fn select(&mut self, lines: &[Line]) -> Vec<Line> {
        let continued = self.kept.last().and_then(|last| {
            let at = lines.iter().rposition(|l| l == last)?;
            let start = (at + 1).checked_sub(self.kept.len())?;
            (lines[start..=at] == self.kept[..]).then_some(at + 1)
        });
        let anchored = || {
            let first = self.kept.first()?;
            // The latest place the first line could start a window that ends now.
            let from = lines.len().saturating_sub(self.max_lines + self.kept.len());
            lines[from..]
                .iter()
                .position(|l| l == first)
                .map(|at| from + at)
        };
        match (continued, anchored()) {
            (Some(next), _) => self.kept.extend(lines[next..].iter().cloned()),
            (None, Some(start)) => self.kept = lines[start..].to_vec(),
            (None, None) => {
                let keep = self.max_lines.saturating_sub(self.hop).max(1);
                self.kept = lines[lines.len().saturating_sub(keep)..].to_vec();
            }
        }
        if self.kept.len() > self.max_lines {
            let keep = self.max_lines.saturating_sub(self.hop).max(1);
            self.kept.drain(..self.kept.len() - keep);
        }
        self.kept.clone()
    }
}

/// How many tokens of a model's cache (`cached`, the tokens it last computed) a new
/// `prompt` can keep: their common beginning, but never the whole prompt, since the
/// last prompt token must be computed again to predict what follows it.
pub fn reusable_prefix(cached: &[i32], prompt: &[i32]) -> usize {
    let common = cached
        .iter()
        .zip(prompt)
        .take_while(|(a, b)| a == b)
        .count();
    common.min(prompt.len().saturating_sub(1))
}
