//! The floor: deadlines, the next turn given, a timed-out speaker retried, a turn ended.

use crate::*;

impl Conference {
    pub(super) fn check_deadlines(&mut self, now: Duration, out: &mut Vec<Output>) {
        if self
            .held_since
            .is_some_and(|since| now >= since + self.config.human_timeout)
        {
            out.push(Output::Notice(Notice::HumanTimeout {
                secs: self.config.human_timeout.as_secs(),
            }));
            self.end_hold(now, out);
        }
        self.resend_if_unheard(now, out);
        match self.timeout_deadline() {
            Some(deadline) if now >= deadline => {}
            _ => return,
        }
        match std::mem::replace(&mut self.floor, Floor::Idle) {
            Floor::Speaking(turn) => {
                let speaker = self.engine.name(turn.index).to_owned();
                out.push(Output::Notice(Notice::TurnTimeout {
                    speaker: speaker.clone(),
                    secs: self.config.turn_timeout.as_secs(),
                }));
                // Handing it the next turn again would cost another full timeout; it is
                // retried after a few turns of the others.
                self.engine.set_absent(turn.index, true);
                self.timed_out.insert(turn.index, 0);
                out.push(Output::Notice(Notice::Absent {
                    speaker,
                    reason: "no answer within the turn timeout".to_owned(),
                }));
                self.cut_short(turn, out);
                let question_id = self.next_question_id();
                out.push(Output::Interrupt {
                    kind: InterruptKind::Cancel,
                    question_id,
                });
            }
            Floor::AwaitingPlayback { .. } => {
                out.push(Output::Notice(Notice::PlaybackTimeout {
                    secs: self.config.turn_timeout.as_secs(),
                }));
                self.unplayed.clear();
            }
            Floor::Idle | Floor::Open => return,
        }
        self.give_next_turn(now, out);
    }

    /// The turn in progress, sent again when its speaker has sent nothing of it for
    /// [`ConferenceConfig::turn_resend`].
    fn resend_if_unheard(&mut self, now: Duration, out: &mut Vec<Output>) {
        let (resend, timeout) = (self.config.turn_resend, self.config.turn_timeout);
        // Not while the human holds the floor: its speaker may have set it aside for the
        // answer, and the hold's end repeats it.
        let Floor::Speaking(turn) = &mut self.floor else {
            return;
        };
        if self.held_since.is_some() {
            return;
        }
        // Due with the timeout: the turn is over rather than sent again.
        if turn.resend_at(resend).is_none_or(|at| now < at) || now >= turn.started_at + timeout {
            return;
        }
        turn.sent_at = now;
        let speaker = self.engine.name(turn.index).to_owned();
        out.push(Output::Notice(Notice::TurnResent {
            speaker: speaker.clone(),
            question_id: turn.question_id,
            secs: (now - turn.started_at).as_secs(),
        }));
        out.push(Output::Turn {
            speaker,
            question_id: turn.question_id,
        });
    }

    pub(super) fn give_next_turn(&mut self, now: Duration, out: &mut Vec<Output>) {
        if self.held_since.is_some() {
            // Nobody starts while the human talks; the turn goes out when the hold ends.
            self.turn_due = true;
            self.floor = Floor::Idle;
            out.push(Output::Status(self.status()));
            return;
        }
        self.turn_due = false;
        self.retry_timed_out(out);
        match self.engine.next_turn() {
            Some(speaker) => {
                let question_id = self.next_question_id();
                for (index, turns) in &mut self.timed_out {
                    if *index != speaker {
                        *turns += 1;
                    }
                }
                out.push(Output::Turn {
                    speaker: self.engine.name(speaker).to_owned(),
                    question_id,
                });
                self.floor = Floor::Speaking(ActiveTurn {
                    index: speaker,
                    question_id,
                    started_at: now,
                    sent_at: now,
                    heard: false,
                    text: conductor::Utterance::default(),
                });
            }
            None => {
                self.floor = Floor::Open;
                out.push(Output::Notice(Notice::FloorOpen));
            }
        }
        out.push(Output::Status(self.status()));
    }

    /// Offers the turn again to participants that were skipped for long enough for not
    /// answering; the floor being open (everyone else gone) retries them at once.
    pub(super) fn retry_timed_out(&mut self, out: &mut Vec<Output>) {
        let Some(after) = self.config.absent_retry_turns else {
            return;
        };
        let nobody_else = self.engine.nobody_eligible();
        let due: Vec<(usize, u32)> = self
            .timed_out
            .iter()
            .filter(|(_, turns)| nobody_else || **turns >= after)
            .map(|(i, t)| (*i, *t))
            .collect();
        for (index, turns) in due {
            self.timed_out.remove(&index);
            if self.engine.set_absent(index, false) {
                out.push(Output::Notice(Notice::Retried {
                    speaker: self.engine.name(index).to_owned(),
                    turns,
                }));
            }
        }
    }

    /// Ends `turn` early, keeping what was said so far in the history.
    pub(super) fn cut_short(&mut self, turn: ActiveTurn, out: &mut Vec<Output>) {
        self.end_turn(turn, true, out);
    }

    /// Ends `turn`; what it said (if anything) becomes an utterance.
    pub(super) fn end_turn(&mut self, turn: ActiveTurn, interrupted: bool, out: &mut Vec<Output>) {
        self.engine.finish_turn();
        if !turn.text.as_str().trim().is_empty() {
            out.push(Output::Utterance(Utterance {
                speaker: self.engine.name(turn.index).to_owned(),
                text: turn.text.into_string(),
                question_id: turn.question_id,
                interrupted,
                human: false,
                heard: None,
            }));
        }
    }

    pub(super) fn too_much_unplayed(&self) -> bool {
        !self.player_gone
            && self
                .config
                .max_unplayed
                .is_some_and(|max| self.unplayed.len() > max)
    }
}
