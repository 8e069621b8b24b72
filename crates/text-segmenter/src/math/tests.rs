use super::tokens::opens_inline_math;
use super::*;

fn say(text: &str) -> String {
    speak(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn tokens() {
    let kinds: Vec<Kind> = tokenize("3x+$2,500 \\frac{a}")
        .iter()
        .map(|t| t.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            Kind::Num,
            Kind::Word,
            Kind::Sym('+'),
            Kind::Num,
            Kind::Space,
            Kind::Cmd,
            Kind::Sym('{'),
            Kind::Word,
            Kind::Sym('}'),
        ]
    );
    let modes: Vec<Mode> = tokenize("a $b$ `c`").iter().map(|t| t.mode).collect();
    assert_eq!(
        modes,
        [
            Mode::Prose,
            Mode::Prose,
            Mode::Prose,
            Mode::Math,
            Mode::Math,
            Mode::Prose,
            Mode::Prose,
            Mode::Code,
            Mode::Code,
        ]
    );
}

#[test]
fn money_is_not_math() {
    assert!(!opens_inline_math("$5 and $10", 0));
    assert!(!opens_inline_math("$5-$10", 0));
    assert!(opens_inline_math("$2$.", 0));
    assert!(opens_inline_math("$x = 2$ now", 0));
    assert!(!opens_inline_math("$ x$", 0));
    assert!(!opens_inline_math("$x\n$", 0));
    assert_eq!(say("It costs $2,500 or $5."), "It costs $2,500 or $5.");
}

#[test]
fn fractions_roots_limits() {
    let cases = [
        ("\\frac{a}{b}", "a over b"),
        (
            "\\frac{1}{2} + \\frac{x+1}{3}",
            "1 over 2 plus x plus 1 over 3",
        ),
        ("\\frac{dy}{dx}", "d y by d x"),
        ("\\sqrt{x}", "the square root of x"),
        ("\\sqrt[3]{8} = 2", "the cube root of 8 equals 2"),
        ("\\sqrt[n]{x}", "the n th root of x"),
        (
            "\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1",
            "the limit as x goes to 0 of sine x over x equals 1",
        ),
        ("\\sum_{i=1}^{n} i", "the sum from i equals 1 to n of i"),
        ("\\int_0^1 x dx", "the integral from 0 to 1 of x dx"),
        ("\\lim f", "the limit of f"),
        ("\\binom{n}{k}", "n choose k"),
        ("\\bar{x}", "x bar"),
        ("\\vec{v}", "vector v"),
    ];
    for (input, expected) in cases {
        assert_eq!(say(input), expected, "{input:?}");
    }
}

#[test]
fn powers_and_subscripts() {
    let cases = [
        ("x^2", "x squared"),
        ("x^3", "x cubed"),
        ("x^n", "x to the power of n"),
        ("x^{n}", "x to the power of n"),
        ("x^{n+1}", "x to the power of n plus 1"),
        ("e^{-x}", "e to the power of minus x"),
        ("10^-3", "10 to the power of minus 3"),
        ("2^(n+1)", "2 to the power of (n plus 1)"),
        ("90^\\circ", "90 degrees"),
        ("x² + y²", "x squared plus y squared"),
        ("10⁻³", "10 to the power of minus 3"),
        ("E = mc²", "E equals mc squared"),
        ("a fact¹", "a fact"),
        ("see [^1]", "see [1]"),
        ("x_1 + x_{2}", "x sub 1 plus x sub 2"),
        ("snake_case stays", "snake_case stays"),
        ("$a_n$", "a sub n"),
    ];
    for (input, expected) in cases {
        assert_eq!(say(input), expected, "{input:?}");
    }
}

#[test]
fn greek_and_commands() {
    let cases = [
        ("\\Delta x", "delta x"),
        ("\\alpha + \\beta", "alpha plus beta"),
        ("\\varepsilon", "epsilon"),
        ("Δx", "delta x"),
        ("2π", "2 pi"),
        ("the α particle", "the alpha particle"),
        ("Ελλάδα", "Ελλάδα"),
        ("a \\cdot b \\times c", "a times b times c"),
        ("\\text{area} = \\pi r^2", "area equals pi r squared"),
        ("\\mathbb{R}", "R"),
        ("\\unknown{y}", "y"),
        ("x \\leq 3", "x is less than or equal to 3"),
        ("\\left( x \\right)", "( x )"),
        ("\\infty", "infinity"),
        ("x → ∞", "x goes to infinity"),
        ("\\begin{cases} x \\end{cases}", "x"),
        ("a\\,b", "a b"),
        ("100\\%", "100 percent"),
    ];
    for (input, expected) in cases {
        assert_eq!(say(input), expected, "{input:?}");
    }
}

#[test]
fn operators_between_operands() {
    let cases = [
        ("3x+1", "3 x plus 1"),
        ("f'(x) = 2x", "f prime of x equals 2 x"),
        (
            "f(x) = x^2 + 3x - 5",
            "f of x equals x squared plus 3 x minus 5",
        ),
        ("g''(2)", "g double prime of 2"),
        ("the slope is 2/3", "the slope is 2 over 3"),
        ("x/y", "x over y"),
        ("dy/dx", "d y by d x"),
        ("d/dx", "d by d x"),
        ("5 * 3", "5 times 3"),
        ("2**3 + x**2", "2 cubed plus x squared"),
        ("2**n", "2 to the power of n"),
        ("**3** apples", "3 apples"),
        ("2×3", "2 times 3"),
        ("x < 5", "x is less than 5"),
        ("x>0", "x is greater than 0"),
        ("x <= 5", "x is less than or equal to 5"),
        ("x >= y", "x is greater than or equal to y"),
        ("a != b", "a is not equal to b"),
        ("A => B", "A implies B"),
        ("x -> 0", "x goes to 0"),
        ("10 - 5 = 5", "10 minus 5 equals 5"),
        ("10-5=5", "10 minus 5 equals 5"),
        ("n-1", "n minus 1"),
        ("x-y", "x minus y"),
        ("(a+b)/2", "(a plus b) over 2"),
        ("2 * -3", "2 times -3"),
        ("x = -3", "x equals -3"),
    ];
    for (input, expected) in cases {
        assert_eq!(say(input), expected, "{input:?}");
    }
}

#[test]
fn prose_stays() {
    let cases = [
        "a first-year student",
        "a well-known result",
        "send an e-mail",
        "the x-axis and the y-intercept",
        "COVID-19 and GPT-4",
        "an F-16 jet",
        "at 3:30, 50% off",
        "It costs $2,500.",
        "and/or, km/h, w/o, 24/7, A/B testing",
        "C++ and -5 degrees",
        "3 < 4",
        "a <b> tag",
        "a 3D film, 2x faster, the 1st",
        "pages 1-2-3 and 2024-05-01",
        "wait -- no",
        "I - well - no, a dash - here",
        "x- and y-values",
        "snake_case_name",
        "(see above)",
        "don't stop",
    ];
    for input in cases {
        assert_eq!(say(input), input, "{input:?}");
    }
}

#[test]
fn ranges_read_as_to() {
    assert_eq!(say("in 2024-2025"), "in 2024 to 2025");
    assert_eq!(say("3-4 times"), "3 to 4 times");
    assert_eq!(say("a 50-50 chance"), "a 50-50 chance");
    assert_eq!(say("$5-$10"), "$5 to $10");
    assert_eq!(say("50%-60%"), "50% to 60%");
}

#[test]
fn delimiters() {
    let cases = [
        ("\\( x = 2 \\)", "x equals 2"),
        ("\\[ x^2 \\]", "x squared"),
        ("$x = 2$", "x equals 2"),
        ("$$\\frac{1}{2}$$", "1 over 2"),
        ("so $-3 < x$", "so minus 3 is less than x"),
        ("$2$.", "2."),
        ("\\( x = 2.", "x equals 2."),
        ("\\) then", "then"),
        ("$|x|$", "the absolute value of x"),
        ("$n!$", "n factorial"),
        ("$2xy$", "2 xy"),
        ("Use `x + 1` here", "Use `x + 1` here"),
        ("`a^2`", "`a squared`"),
    ];
    for (input, expected) in cases {
        assert_eq!(say(input), expected, "{input:?}");
    }
}
