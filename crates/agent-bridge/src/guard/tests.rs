use proptest::prelude::*;

use super::*;

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn guard(recent: &[&str]) -> SentenceGuard {
    SentenceGuard::new(
        recent.iter().copied(),
        &names(&["student1", "Ben"]),
        &names(&["tutor", "Ms. Rivera", "student2", "Mia", "Dr. Nadia Okafor"]),
    )
}

#[test]
fn apologies_and_bare_agreement_heard_in_a_session_are_refused() {
    let g = guard(&["Mia: What is a limit?"]);
    for line in [
        "Surely!",
        "You're right.",
        "You're absolutely right!",
        "You are correct.",
        "I'm sorry for the misunderstanding earlier.",
        "I'm sorry for any confusion earlier.",
        // A panelist called on in a rehearsal, and one's opening.
        "Sure thing, I can share some insights.",
        "Let's dive into this topic together.",
        // Heard in a study session: the tutor answering the director, and signing off.
        "Yes, I'm ready.",
        "I'm glad I could help.",
        // Heard in study sessions, each a whole line.
        "I'm here to provide you with a simple, yet interesting conversation on calculus.",
        "I'm here to listen!",
        // Heard in a study session (2026-12-01): a student's whole line, a verdict on
        // another's words, and a sign-off.
        "No worries!",
        "Ms. Rivera's statement is correct!",
        "I just said that Rivera's statement was correct!",
        "Ms. Rivera's response was correct!",
        "Ben's explanation is absolutely right.",
        "I'm glad you found the information helpful.",
        // Heard in a debate: an assistant declining, a bare agreement.
        "I'm unable to engage in discussions regarding political matters due to its sensitive nature.",
        "My primary function is to provide advice on legal issues and impartial discussion on non-political topics.",
        "You should not engage in discussions regarding political matters due to your sensitive nature.",
        "You are absolutely correct about your point.",
    ] {
        assert_eq!(g.check(line), Some(Refusal::Pleasantry), "{line}");
    }
    // A verdict that goes on to say why says something; so does a statement whose
    // subject is no one's words.
    assert_eq!(g.check("The slope is correct at every point."), None);
    assert_eq!(
        g.check("Her statement is correct because the slope of x squared at three is six."),
        None
    );
    // Saying something, they are no bare reply.
    assert_eq!(
        g.check("I'm ready to invest if churn stays under five percent."),
        None
    );
    assert_eq!(g.check("Could you please provide the churn numbers?"), None);
    assert_eq!(g.check("You're right that the slope is six."), None);
    assert_eq!(
        g.check("Sure, I can share my numbers: 55 percent of the cost."),
        None
    );
}

#[test]
fn the_speaker_narrating_itself_behind_a_title_or_a_misspelt_name_is_refused() {
    let tutor = SentenceGuard::new(
        ["Ben: What is a derivative?"],
        &names(&["tutor", "Ms. Rivera"]),
        &names(&["student1", "Ben"]),
    );
    for line in [
        "Yes, Mr. River can definitely explain derivatives in first-year calculus!",
        "Yes, Ms. Rivera can explain derivatives.",
        "Sure, Mr. River could definitely provide a derivative with actual numbers!",
    ] {
        assert_eq!(tutor.check(line), Some(Refusal::Reported), "{line}");
    }
    for line in [
        "Yes, the river can flood.",
        "Rivers can carve valleys, Ben.",
        "Ben, a derivative is a slope.",
    ] {
        assert_eq!(tutor.check(line), None, "{line}");
    }
}

#[test]
fn introducing_oneself_after_the_opening_is_refused() {
    let g = guard(&["Mia: What is a limit?"]);
    for line in [
        "My name is Ben and I am a student in a spoken study session.",
        "I'm Ben.",
        "I am Ben, a first-year student.",
        "This is Ben speaking.",
    ] {
        assert_eq!(g.check(line), Some(Refusal::Pleasantry), "{line}");
    }
    for line in [
        "I am sure the slope is two.",
        "I'm not sure what a limit is.",
        "My answer is two.",
    ] {
        assert_eq!(g.check(line), None, "{line}");
    }
    // At the opening, an introduction is what is asked for.
    assert_eq!(guard(&[]).check("I'm Ben."), None);
}

#[test]
fn narrating_the_conversation_is_refused() {
    let g = guard(&["Mia: What is a limit?"]);
    // Itself in the third person, another's words reported.
    for narration in [
        "Ben has expressed interest in exploring this topic further.",
        "Ben thinks the slope is a limit.",
        "Ben is glad to share his view.",
        "Ms. Rivera just asked us to discuss the slope.",
        "Dr. Nadia Okafor suggested a compromise.",
        "Mia agrees with the tutor.",
        "Ben's position: the slope is complex.",
        "Dr. Nadia also states that Ben believes it.",
        "Mia felt that Ben's message was unclear.",
        "Mia's tone has been calm since the tutor cut in.",
        // Heard in a roundtable, said by Ben of himself.
        "Ben's proposal to ban private cars would be a step forward.",
        "The tutor said the slope is a limit.",
        // Gestures, heard in an auction debate told to "give a nod".
        "Mia nodded and agreed with the tutor.",
        "Ben smiled at the question.",
        // A quote given to a participant, heard as an auction debate's first line.
        "However, I have proposed some alternatives,\" Mia said shortly thereafter.",
        "The slope is a limit,” the tutor said.",
        // Given to someone the guard has not heard yet, or to a pronoun.
        "However, I have proposed some alternatives,\" Olivia Owl said shortly thereafter.",
        "It is a limit,\" she said.",
        // Heard in an auction debate: another's past thought, a perfect, and the
        // speaker's own name as a subject after a lead-in.
        "Mia thought the slope was a bad idea, so she decided to drop it.",
        "Ms. Rivera has been considering other limits.",
        "Mia has expressed doubts about the slope.",
        "In a world where slopes are a threat, Ben has been thinking about limits.",
        "To solve it, Ben proposed a middle way.",
        "Mia clarifies that the slope has two goals.",
        "Ms. Rivera is pointing out that slopes cause delays.",
        "Mia is telling us that the slope is two.",
        // Heard in an auction debate: a perfect with an adverb, a confirmation.
        "Ms. Rivera has already explained this to Mia with clarity.",
        "Mia has confirmed her understanding of the slope.",
        // Said by Ben of himself, heard so in an auction debate; every verb that
        // reports on another narrates the speaker too.
        "Ben agreed with Mia's proposal to use the slope.",
        "Ben explains that the slope is two.",
        // Heard in an auction debate: a verb of emphasis.
        "Mia highlights that the slope is an important step.",
    ] {
        assert_eq!(g.check(narration), Some(Refusal::Reported), "{narration}");
    }
    // Another's name inside an argument, a proposal of theirs, the speaker's own name
    // not as a subject: arguments, not narration.
    for argument in [
        "I think Mia is wrong about the slope.",
        "Mia's proposal is flawed because the slope is two.",
        "Mia has a point, but the slope is two.",
        "Call me Ben, and the slope is two.",
        "The word \"limit\" Newton never used.",
    ] {
        assert_eq!(g.check(argument), None, "{argument}");
    }
    // A debate's roles stand for names: the judge and the counsel, heard so.
    let judge = SentenceGuard::new(
        ["Counsel for the defense: Cars bring customers to the shops."],
        &names(&["judge", "Judge Okafor"]),
        &names(&["Counsel for the defense", "Counsel for the prosecution"]),
    );
    let defense = SentenceGuard::new(
        ["Judge Okafor: Where is the evidence?"],
        &names(&["defense", "Counsel for the defense"]),
        &names(&["Judge Okafor", "Counsel for the prosecution"]),
    );
    for (g, narration) in [
        (&judge, "The judge Okafor concludes that this step is weak."),
        (
            &judge,
            "Counsel for the defense agrees and says buses are better.",
        ),
        (&judge, "The prosecution argued that the air is cleaner."),
        (
            &defense,
            "Judge Okafor countered by stating that bikes help.",
        ),
        (&defense, "Counsel for the prosecution suggests more buses."),
        (&defense, "The judge asked us about parking."),
        (&defense, "Judge Okafor is saying that shops close early."),
        (&judge, "She pointed out that noise levels are high."),
        (&judge, "He also argues that the shops need access."),
        (&judge, "Judge Okafor's claim is fundamentally flawed."),
    ] {
        assert_eq!(g.check(narration), Some(Refusal::Reported), "{narration}");
    }
    // Speaking in another's role, heard in a debate.
    assert_eq!(
        defense.check("As counsel for the prosecution, I believe your first argument fails."),
        Some(Refusal::Identity)
    );
    assert_eq!(
        defense.check("As counsel for the defense, I believe the shops need cars."),
        None
    );
    assert_eq!(
        defense.check("As Judge Okafor said, the evidence is thin."),
        None
    );
    for (g, line) in [
        (&judge, "The defense is right that deliveries need access."),
        (
            &judge,
            "Counsel for the prosecution, where is your evidence on noise?",
        ),
        (&judge, "The evidence on noise is thin."),
        (
            &defense,
            "Judge Okafor, the shops lose customers without parking.",
        ),
        (
            &defense,
            "The prosecution's figures on air quality ignore the buses.",
        ),
    ] {
        assert_eq!(g.check(line), None, "{line}");
    }
    // Names as words of a line that says something, or to address someone.
    for line in [
        "Mia, the slope is a limit of secant slopes.",
        "Ms. Rivera, why is the slope a limit?",
        "Mia is right that the slope changes at every point.",
        "I think the slope is six at three.",
        "Mia's point about the secant misses the limit.",
    ] {
        assert_eq!(g.check(line), None, "{line}");
    }
}

#[test]
fn an_asking_turn_asks_after_at_most_a_short_lead_in() {
    let mut g = guard(&["Mia: The slope is six at three."]).asking();
    assert_eq!(
        g.check("The follow-up is about the margin and turnover."),
        Some(Refusal::NoQuestion)
    );
    assert_eq!(g.check("Why is it six at three?"), None);
    // A short lead-in, then the question; a second statement is refused.
    assert_eq!(g.check("I'm still confused."), None);
    g.remember("I'm still confused.");
    assert_eq!(g.check("The slope is a limit."), Some(Refusal::NoQuestion));
    assert_eq!(g.check("Why is the slope a limit?"), None);
    g.remember("Why is the slope a limit?");
    // Once asked, the rest of the turn is free.
    assert_eq!(g.check("The secant lines get closer and closer."), None);
}

#[test]
fn an_answer_may_take_up_the_question_just_asked_when_it_adds_to_it() {
    let asked = "Ben: What is the slope of the tangent line at point (1, 0) on the graph of y equals e to the x?";
    let g = guard(&["Ms. Rivera: Let's look at derivatives.", asked]);
    // Heard refused in a study session: answers restating the question.
    for answer in [
        "The slope of the tangent line is 0.",
        "The slope of the tangent line at point (1, 0) is e, the value of e to the x there.",
    ] {
        assert_eq!(g.check(answer), None, "{answer}");
    }
    // The question said again, or with a word changed, is still an echo.
    for echo in [
        "The slope of the tangent line at point (1, 0) on the graph of y equals e to the x.",
        "What is the slope of the tangent line at point (1, 0) on the graph of y equals e?",
    ] {
        assert_eq!(g.check(echo), Some(Refusal::Echo), "{echo}");
    }
    // A start copying the question is let run: its end decides.
    assert!(!g.copies_recent("The slope of the tangent line at point"));
    // An older line's words are no question being answered.
    let g = guard(&[asked, "Ms. Rivera: Let's look at derivatives now."]);
    assert_eq!(
        g.check("The slope of the tangent line is 0."),
        Some(Refusal::Echo)
    );
}

#[test]
fn a_sentence_said_in_the_recent_lines_is_an_echo() {
    let g = guard(&[
        "I'm so glad you're sharing your dedication to making a difference.",
        "The derivative of x squared is two x.",
    ]);
    assert_eq!(
        g.check("The derivative of x squared is two x!"),
        Some(Refusal::Echo)
    );
    assert_eq!(
        g.check("So the derivative of x squared is two x, right?"),
        Some(Refusal::Echo)
    );
    assert_eq!(g.check("What about x cubed then?"), None);
    // A copy with spaces dropped ("isthe") is a copy.
    let g = guard(&[
        "The derivative of its velocity is the change in y as it moves from x to a later point.",
    ]);
    assert_eq!(
        g.check(
            "The derivative of its velocity isthe change in y as it moves fromx to a later point."
        ),
        Some(Refusal::Echo)
    );
    assert_eq!(g.check("Isthe limit what makes it a slope?"), None);
    let g = guard(&["Two x.", "Right."]);
    assert_eq!(g.check("Two x!"), Some(Refusal::Echo), "a short repeat");
    assert_ne!(g.check("Yes."), Some(Refusal::Echo));
}

#[test]
fn a_chinese_sentence_said_in_the_recent_lines_is_an_echo() {
    let g = guard(&["经济学家: 政府需要采取措施来控制私家车的使用，以减少对公共交通系统的影响。"]);
    assert_eq!(
        g.check("政府需要采取措施来控制私家车的使用，以减少其对公共交通系统的影响。"),
        Some(Refusal::Echo)
    );
    assert_eq!(
        g.check("我认为步行街能让小商店的生意更好。"),
        None,
        "a new point on the same subject"
    );
}

#[test]
fn a_question_quoting_what_it_takes_up_is_no_echo() {
    let answer = "Autonomous picking robots cut the picking labour cost by half.";
    let g = guard(&[&format!("presenter: {answer}")]).quoting(answer);
    // A follow-up that quotes the claim to test it.
    assert_eq!(
        g.check("Did autonomous picking robots cut the picking labour cost by half in every site?"),
        None
    );
    // Said back as a statement, it is still an echo.
    assert_eq!(
        g.check("Autonomous picking robots cut the picking labour cost by half."),
        Some(Refusal::Echo)
    );
    // Without it to take up, the quoting question is an echo.
    assert_eq!(
        guard(&[&format!("presenter: {answer}")]).check(
            "Did autonomous picking robots cut the picking labour cost by half in every site?"
        ),
        Some(Refusal::Echo)
    );
}

#[test]
fn reciting_the_instructions_is_an_echo() {
    let g = guard(&[]).with_instructions([
            "You are Ben, the student. Probe the answer you just heard: ask about churn. Do not greet, do not thank.",
        ]);
    assert_eq!(
        g.check("Mm-hmm, probe the answer you just heard about churn."),
        Some(Refusal::Echo)
    );
    assert_eq!(g.check("You are Ben, the student."), Some(Refusal::Echo));
    assert_eq!(g.check("What is your churn rate each month?"), None);
}

#[test]
fn only_the_last_eight_lines_count() {
    let mut lines = vec!["The slope of the tangent line is the derivative."];
    lines.extend(["Another line here."; RECENT_LINES]);
    let g = guard(&lines);
    assert_eq!(
        g.check("The slope of the tangent line is the derivative."),
        None
    );
}

#[test]
fn pleasantries_are_refused_once_the_conversation_runs() {
    let opening = guard(&[]);
    assert_eq!(opening.check("Thank you!"), None);
    assert_eq!(
        opening.check("Sure, I'd be happy to help!"),
        Some(Refusal::Pleasantry)
    );
    let g = guard(&["What is a limit?"]);
    for filler in [
        "Thank you so much!",
        "Great question, Ben.",
        "You're welcome!",
        "If you have any other questions, feel free to ask.",
        "I agree.",
    ] {
        assert_eq!(g.check(filler), Some(Refusal::Pleasantry), "{filler}");
    }
    assert_eq!(
        g.check("I agree that the slope is 6 at x equals 3."),
        None,
        "a pleasantry with content stays"
    );
    assert_eq!(g.check("Yes, the slope is six."), None);
    assert_eq!(g.check("Yes, Mia is right."), Some(Refusal::Pleasantry));
    assert_eq!(g.check("Yes, you are right."), Some(Refusal::Pleasantry));
    assert_eq!(
        g.check("Sure! Let's discuss derivatives again."),
        Some(Refusal::Pleasantry)
    );
    assert_eq!(g.check("Sure!"), Some(Refusal::Pleasantry));
    assert_eq!(
        g.check("Sure, I'd be happy to help!"),
        Some(Refusal::Pleasantry)
    );
    assert_eq!(g.check("Sure, the derivative of x squared is 2 x."), None);
    assert_eq!(
        opening.check("I'm sorry, but I can't assist with that request."),
        Some(Refusal::Pleasantry),
        "an assistant's line, even at the opening"
    );
    for refusal in [
        "I apologize, but I'm not able to assist with that.",
        "I'm afraid I cannot help with that.",
        "Sorry, I am unable to assist with this request.",
        "I'm sorry, I don't have enough context or information about what you're referring to.",
        "Please provide more details so we can better understand and respond.",
    ] {
        assert_eq!(
            opening.check(refusal),
            Some(Refusal::Pleasantry),
            "{refusal}"
        );
    }
    assert_eq!(
        opening.check("Who will help with that backlog of warehouse orders?"),
        None
    );
}

#[test]
fn presenting_oneself_as_another_is_refused() {
    let g = guard(&[]);
    for slip in [
        "I'm Dr. Nadia Okafor, and I study cities.",
        "Hello, I am Mia.",
        "My name is Rivera.",
        "This is Okafor speaking.",
    ] {
        assert_eq!(g.check(slip), Some(Refusal::Identity), "{slip}");
    }
    assert_eq!(g.check("I'm Ben, and I'm confused."), None);
    assert_eq!(g.check("I am not sure, Mia."), None);
    assert_eq!(g.check("I'm glad Mia asked."), None);
}

#[test]
fn reporting_what_was_said_is_refused() {
    let g = guard(&["What is a limit?"]);
    for frame in [
        "The human asked: \"Sorry?\"",
        "Ms. Rivera's answer: The function has a maximum at zero.",
        "The human just asked \"Can you explain the chain rule again?\"",
        "Mia said: the slope is two.",
        "After a careful look, Ms. Rivera explained: \"Actually, it is two.\"",
        "As Ben noted: the slope is two.",
    ] {
        assert_eq!(g.check(frame), Some(Refusal::Reported), "{frame}");
    }
    // A colon or a quote elsewhere is fine.
    assert_eq!(g.check("Here is the rule: multiply by the power."), None);
    assert_eq!(g.check("We call it \"the slope\" for short."), None);
    assert_eq!(g.check("What I noted is this: the slope is two."), None);
}

#[test]
fn calling_someone_without_a_word_more_is_refused() {
    let g = guard(&["What is a limit?"]);
    for call in ["Ben?", "Ms. Rivera?", "Oh, hello Mia!", "Ms. River?"] {
        assert_eq!(g.check(call), Some(Refusal::Pleasantry), "{call}");
    }
    assert_eq!(g.check("Mia, what is two x at three?"), None);
    assert_eq!(g.check("I know."), Some(Refusal::Pleasantry));
    assert_eq!(g.check("Yeah!"), Some(Refusal::Pleasantry));
}

#[test]
fn an_answer_to_the_human_starts_on_what_was_asked() {
    let asked = "Can you show me a derivative with actual numbers?";
    let mut g = guard(&["Ben: What is a limit?", asked]).answering(asked);
    assert_eq!(
        g.check("Let's look at the agenda first."),
        Some(Refusal::Unanswered)
    );
    let answer = "Sure, the derivative of x squared at 3 is 6.";
    assert_eq!(g.check(answer), None, "'derivative' is taken up");
    assert_eq!(g.check("Numbers help."), None, "'numbers' is taken up");
    // Asked for numbers, an answer may start by setting up its example; not with words
    // that set up nothing.
    assert_eq!(g.check("Let's say f(x) = x squared."), None);
    assert_eq!(g.check("Suppose x is 3."), None);
    assert_eq!(
        g.check("Let me look at the agenda first."),
        Some(Refusal::Unanswered)
    );
    assert_eq!(g.check("Say hello to Mia."), Some(Refusal::Unanswered));
    // A promise with a figure sets nothing up.
    assert!(!sets_up_example("Let me explain it in 2 steps."));
    assert_eq!(g.check("Let x be 3."), None);
    // Set up, the example is no answer yet: the next sentence must take up the human's
    // words, and another example is not let through.
    let mut set_up = guard(&[asked]).answering(asked);
    set_up.remember("Let's say f(x) = x squared.");
    assert!(set_up.answers_human());
    assert_eq!(
        set_up.check("Suppose g is x cubed."),
        Some(Refusal::Unanswered)
    );
    assert_eq!(
        set_up.check("The slope of this tangent line is given by:"),
        Some(Refusal::Unanswered)
    );
    assert_eq!(set_up.check("Its derivative is 2x, so at 3 it is 6."), None);
    set_up.remember("Its derivative is 2x, so at 3 it is 6.");
    assert!(!set_up.answers_human());
    // An offer to answer takes up the words and answers nothing: the answer is still to
    // come, and a second offer is refused.
    let mut offered = guard(&[asked]).answering(asked);
    let offer = "Sure, Mr. River could definitely provide a derivative with actual numbers!";
    assert_eq!(offered.check(offer), None);
    offered.remember(offer);
    assert!(offered.answers_human());
    assert_eq!(
        offered.check("I can show you a derivative with actual numbers."),
        Some(Refusal::Unanswered)
    );
    assert_eq!(
        offered.check("The derivative of x squared at 3 is 6."),
        None
    );
    // Asked for a reason, an example set up is no answer yet.
    let why = "Why is the slope of a curve a limit?";
    assert_eq!(
        guard(&[why])
            .answering(why)
            .check("Let's say f(x) = x squared."),
        Some(Refusal::Unanswered)
    );
    // Once the answer has started, the next sentences are free.
    g.remember(answer);
    assert_eq!(g.check("Now try x cubed yourself."), None);
    // A line that asks nothing in particular asks nothing of the reply.
    let g = guard(&["Why is it so?"]).answering("Why is it so?");
    assert_eq!(g.check("Slopes measure change."), None);
}

proptest! {
    /// The first sentence said in answer to the human shares a content word with
    /// the human's line, whatever was generated (or, asked for an example or numbers,
    /// sets one up with a figure).
    #[test]
    fn an_answer_never_starts_off_the_question(
        asked in "[a-z]{3,8}( [a-z]{3,8}){2,8}\\?",
        reply in "[a-z]{3,8}( [a-z]{3,8}){2,8}\\.",
    ) {
        let g = guard(&[]).answering(&asked);
        let asked_stems = answers::content_stems(&words(&asked));
        let reply_stems = answers::content_stems(&words(&reply));
        let wants_example = words(&asked)
            .iter()
            .any(|w| EXAMPLE_REQUESTS.contains(&w.as_str()));
        if g.check(&reply).is_none() && !asked_stems.is_empty() {
            prop_assert!(
                reply_stems.iter().any(|s| asked_stems.contains(s))
                    || (wants_example && sets_up_example(&reply))
            );
        }
    }
}

proptest! {
    /// A sentence that stands in the recent lines is never let through, whatever
    /// else was said.
    #[test]
    fn a_recent_sentence_is_never_said_again(
        lines in prop::collection::vec("[a-z]{1,6}( [a-z]{1,6}){2,10}\\.", 1..RECENT_LINES),
        pick in any::<prop::sample::Index>(),
    ) {
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let g = guard(&refs);
        let said = pick.get(&lines);
        prop_assert!(g.check(said).is_some(), "{said:?} passed");
    }

    /// Nothing of the recent lines, no refusal for echo.
    #[test]
    fn new_words_are_no_echo(sentence in "[q-z]{3,8}( [q-z]{3,8}){3,8}\\.") {
        let g = guard(&["the cat sat on the mat.", "a b c d e f."]);
        prop_assert_ne!(g.check(&sentence), Some(Refusal::Echo));
    }
}

#[test]
fn a_start_is_a_copy_only_when_every_3_gram_of_seven_words_is_recent() {
    let line = "A derivative is a rate at which an object changes its position.";
    let g = SentenceGuard::new([line], &[], &[]);
    assert!(
        !g.copies_recent("A derivative is a rate at"),
        "six words: too early"
    );
    assert!(g.copies_recent("A derivative is a rate at which"));
    assert!(g.copies_recent("a derivative, is a RATE at which an"));
    assert!(!g.copies_recent("A derivative is a rate of change"));
    // An answer may start on the human's words.
    let g = SentenceGuard::new([line], &[], &[]).answering(line);
    assert!(!g.copies_recent("A derivative is a rate at which"));
}

#[test]
fn a_speaker_calling_itself_by_name_is_refused() {
    // The guard of these tests speaks as Ben (student1).
    let g = guard(&["Mia: What is a limit?"]);
    assert_eq!(g.check("Ben, you're welcome!"), Some(Refusal::Identity));
    // Heard in a study session (the tutor, seed 7): the vocative after a word of reply.
    assert_eq!(g.check("Yes, Ben!"), Some(Refusal::Identity));
    assert_eq!(g.check("Thanks, Ben."), Some(Refusal::Identity));
    assert_ne!(g.check("Yes, Mia!"), Some(Refusal::Identity));
    assert_eq!(g.check("Ben here!"), None);
    assert_eq!(g.check("Mia, a limit is where the values head."), None);
    // Further into a sentence, its own name is a narrator's subject.
    assert_eq!(g.check("Well, Ben thinks so."), Some(Refusal::Reported));
}

#[test]
fn an_offer_to_answer_is_told_from_an_answer() {
    for offer in [
        "Let me explain it in two steps.",
        "I'll show you.",
        "Sure, Mr. River could definitely provide a derivative with actual numbers!",
        "I can definitely explain it with some specific numbers for you:",
        "We can walk through a derivative together.",
        "Yes, Mr. River can definitely explain derivatives in first-year calculus!",
    ] {
        assert!(only_offers(offer), "{offer}");
    }
    for answer in [
        "The derivative can show how fast a function changes.",
        "You can explain the slope as a limit.",
        "I can show you: the derivative of x squared at 3 is 6.",
        "It can help to think of the slope as a rate.",
        "The derivative of x squared is 2x.",
        "We can see that the slope is the limit of the difference quotient.",
    ] {
        assert!(!only_offers(answer), "{answer}");
    }
}
