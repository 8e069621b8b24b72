//! Properties of the host's decisions over arbitrary inputs.

use model_schedule::{Gate, Priority, Seats, Ticket, apply, plan_reuse};
use proptest::prelude::*;

fn priority() -> impl Strategy<Value = Priority> {
    prop_oneof![
        Just(Priority::Answer),
        Just(Priority::Turn),
        Just(Priority::Side),
        Just(Priority::ReadAlong),
    ]
}

/// A conversation's prompt: a persona, lines, a direction, each a run of tokens.
fn prompt_of(persona: &[u16], lines: &[Vec<u16>], direction: &[u16]) -> Vec<u16> {
    let mut p = persona.to_vec();
    for line in lines {
        p.extend(line);
    }
    p.extend(direction);
    p
}

proptest! {
    /// A participant never loses a seat that is busy, two participants never share one,
    /// and one who has a seat keeps it.
    #[test]
    fn seats_are_never_shared_nor_taken_from_a_busy_participant(
        claims in prop::collection::vec((0usize..6, prop::collection::vec(any::<bool>(), 3)), 1..60),
    ) {
        let names = ["a", "b", "c", "d", "e", "f"];
        let mut seats = Seats::new(3);
        for (who, busy) in claims {
            let before: Vec<Option<usize>> = names.iter().map(|n| seats.seat_of(n)).collect();
            let had = seats.seat_of(names[who]);
            let seated = seats.claim(names[who], |s| busy[s]);
            match (had, &seated) {
                (Some(seat), Some(s)) => prop_assert_eq!(s.seat, seat),
                (Some(_), None) => prop_assert!(false, "a participant with a seat got none"),
                (None, Some(s)) => prop_assert!(!busy[s.seat]),
                (None, None) => prop_assert!((0..3).all(|s| busy[s])),
            }
            for (i, name) in names.iter().enumerate() {
                let now = seats.seat_of(name);
                if let Some(seat) = before[i].filter(|&s| busy[s]) {
                    prop_assert_eq!(now, Some(seat));
                }
                if let Some(seat) = now {
                    prop_assert!(names.iter().filter(|n| seats.seat_of(n) == Some(seat)).count() == 1);
                }
            }
        }
    }

    /// Whatever the cache holds, carrying out the plan leaves exactly the prompt's first
    /// `read_from` tokens in it: the model is shown what a fresh read would show it, and
    /// the last prompt token is always read.
    #[test]
    fn reuse_never_changes_what_the_model_is_shown(
        cached in prop::collection::vec(0u16..6, 0..80),
        prompt in prop::collection::vec(0u16..6, 0..80),
        min_shift in 1usize..8,
    ) {
        let reuse = plan_reuse(&cached, &prompt, min_shift);
        prop_assert_eq!(apply(&cached, &reuse), prompt[..reuse.read_from].to_vec());
        prop_assert!(reuse.read_from < prompt.len().max(1));
        if let Some(shift) = reuse.shift {
            prop_assert!(shift.len >= min_shift);
            prop_assert_eq!(shift.from - shift.by, reuse.keep);
        }
    }

    /// A window that drops its oldest lines and appends new ones keeps every line that
    /// stayed: only the new lines and the direction are read.
    #[test]
    fn a_moving_window_reads_only_what_is_new(
        persona in prop::collection::vec(100u16..200, 1..20),
        lines in prop::collection::vec(prop::collection::vec(200u16..60000, 8..30), 3..12),
        dropped in 1usize..3,
        new_lines in prop::collection::vec(prop::collection::vec(200u16..60000, 8..30), 0..3),
        direction in prop::collection::vec(1u16..100, 1..10),
    ) {
        let before = prompt_of(&persona, &lines, &direction);
        let mut now = lines[dropped.min(lines.len() - 1)..].to_vec();
        now.extend(new_lines.iter().cloned());
        let after = prompt_of(&persona, &now, &direction);
        let reuse = plan_reuse(&before, &after, 8);
        let stayed: usize = lines[dropped.min(lines.len() - 1)..].iter().map(Vec::len).sum();
        prop_assert!(reuse.read_from >= persona.len() + stayed);
        prop_assert_eq!(apply(&before, &reuse), after[..reuse.read_from].to_vec());
    }

    /// The gate is held by one ticket at a time, and each grant goes to the most urgent
    /// ticket waiting then: an answer to the human never waits behind lower work for more
    /// than the step under way.
    #[test]
    fn the_gate_grants_the_most_urgent_waiting_ticket(
        ops in prop::collection::vec((priority(), 0u64..20, any::<bool>()), 1..60),
    ) {
        let mut gate = Gate::new();
        let mut waiting: Vec<Ticket> = Vec::new();
        for (serial, (priority, question_id, release)) in ops.into_iter().enumerate() {
            if release {
                if let Some(holder) = gate.holder() {
                    let next = gate.release(holder);
                    if let Some(next) = next {
                        let most_urgent = *waiting.iter().min().unwrap();
                        prop_assert_eq!(next, most_urgent);
                        waiting.retain(|t| *t != next);
                    } else {
                        prop_assert!(waiting.is_empty());
                    }
                }
            } else {
                let ticket = Ticket { priority, question_id, serial: serial as u64 };
                let free = gate.holder().is_none();
                let holds = gate.wait(ticket);
                prop_assert_eq!(holds, free);
                if !holds {
                    waiting.push(ticket);
                }
            }
            prop_assert_eq!(gate.waiting(), waiting.len());
        }
    }
}
