//! What signs, Greek letters and LaTeX commands are called, and the names that are not math.

pub(super) fn sup_char(c: char) -> Option<char> {
    Some(match c {
        '⁰' => '0',
        '¹' => '1',
        '²' => '2',
        '³' => '3',
        '⁴' => '4',
        '⁵' => '5',
        '⁶' => '6',
        '⁷' => '7',
        '⁸' => '8',
        '⁹' => '9',
        '⁺' => '+',
        '⁻' => '-',
        _ => return None,
    })
}

pub(super) fn greek_name(c: char) -> Option<&'static str> {
    Some(match c {
        'α' | 'Α' => "alpha",
        'β' | 'Β' => "beta",
        'γ' | 'Γ' => "gamma",
        'δ' | 'Δ' => "delta",
        'ε' | 'Ε' | 'ϵ' => "epsilon",
        'ζ' | 'Ζ' => "zeta",
        'η' | 'Η' => "eta",
        'θ' | 'Θ' | 'ϑ' => "theta",
        'ι' | 'Ι' => "iota",
        'κ' | 'Κ' => "kappa",
        'λ' | 'Λ' => "lambda",
        'μ' | 'Μ' => "mu",
        'ν' | 'Ν' => "nu",
        'ξ' | 'Ξ' => "xi",
        'ο' | 'Ο' => "omicron",
        'π' | 'Π' => "pi",
        'ρ' | 'Ρ' => "rho",
        'σ' | 'ς' | 'Σ' => "sigma",
        'τ' | 'Τ' => "tau",
        'υ' | 'Υ' => "upsilon",
        'φ' | 'Φ' | 'ϕ' => "phi",
        'χ' | 'Χ' => "chi",
        'ψ' | 'Ψ' => "psi",
        'ω' | 'Ω' => "omega",
        _ => return None,
    })
}

/// Math signs that are words wherever they appear.
pub(super) fn unicode_math_words(c: char) -> Option<&'static str> {
    Some(match c {
        '∞' => "infinity",
        '√' => "the square root of",
        '∑' => "the sum of",
        '∏' => "the product of",
        '∫' => "the integral of",
        '∂' => "partial",
        '∆' => "delta",
        '∇' => "del",
        '≤' | '⩽' => "is less than or equal to",
        '≥' | '⩾' => "is greater than or equal to",
        '≠' => "is not equal to",
        '≈' => "is approximately",
        '≡' => "is equivalent to",
        '∝' => "is proportional to",
        '→' | '⟶' => "goes to",
        '⇒' | '⟹' => "implies",
        '⇔' | '⟺' => "if and only if",
        '±' => "plus or minus",
        '∓' => "minus or plus",
        '÷' => "divided by",
        '∈' => "in",
        '∉' => "not in",
        '∀' => "for all",
        '∃' => "there exists",
        '∅' => "the empty set",
        '∩' => "intersection",
        '∪' => "union",
        '⊂' | '⊆' => "is a subset of",
        _ => return None,
    })
}

/// LaTeX commands that are words.
pub(super) fn command_words(name: &str) -> Option<&'static str> {
    if let Some(greek) = greek_command(name) {
        return Some(greek);
    }
    Some(match name {
        "cdot" | "times" | "ast" => "times",
        "div" => "divided by",
        "pm" => "plus or minus",
        "mp" => "minus or plus",
        "le" | "leq" | "leqslant" => "is less than or equal to",
        "ge" | "geq" | "geqslant" => "is greater than or equal to",
        "lt" => "is less than",
        "gt" => "is greater than",
        "ne" | "neq" => "is not equal to",
        "approx" | "simeq" => "is approximately",
        "sim" => "is similar to",
        "equiv" => "is equivalent to",
        "cong" => "is congruent to",
        "propto" => "is proportional to",
        "to" | "rightarrow" | "longrightarrow" | "mapsto" => "goes to",
        "Rightarrow" | "Longrightarrow" | "implies" => "implies",
        "iff" | "Leftrightarrow" | "Longleftrightarrow" => "if and only if",
        "infty" => "infinity",
        "partial" => "partial",
        "nabla" => "del",
        "in" => "in",
        "notin" => "not in",
        "cup" => "union",
        "cap" => "intersection",
        "subset" | "subseteq" => "is a subset of",
        "emptyset" | "varnothing" => "the empty set",
        "forall" => "for all",
        "exists" => "there exists",
        "neg" | "lnot" => "not",
        "land" | "wedge" => "and",
        "lor" | "vee" => "or",
        "angle" => "angle",
        "perp" => "is perpendicular to",
        "parallel" => "is parallel to",
        "triangle" => "triangle",
        "cdots" | "ldots" | "dots" | "dotsc" | "dotsb" | "vdots" => "and so on",
        "mid" => "such that",
        "prime" => "prime",
        "degree" => "degrees",
        "sin" => "sine",
        "cos" => "cosine",
        "tan" => "tangent",
        "sec" => "secant",
        "csc" => "cosecant",
        "cot" => "cotangent",
        "arcsin" => "arc sine",
        "arccos" => "arc cosine",
        "arctan" => "arc tangent",
        "sinh" => "hyperbolic sine",
        "cosh" => "hyperbolic cosine",
        "tanh" => "hyperbolic tangent",
        "log" => "log",
        "ln" => "natural log",
        "exp" => "exp",
        "max" => "max",
        "min" => "min",
        "det" => "determinant",
        "gcd" => "gcd",
        "&" => "and",
        "%" => "percent",
        _ => return None,
    })
}

pub(super) fn greek_command(name: &str) -> Option<&'static str> {
    let base = name.strip_prefix("var").unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi",
        "chi", "psi", "omega",
    ]
    .into_iter()
    .find(|g| *g == lower)
    // `\Delta` is "delta"; `\ALPHA` is not a command.
    .filter(|_| base.chars().skip(1).all(|c| c.is_ascii_lowercase()))
}

/// Commands spoken as a space.
pub(super) fn is_spacing_command(name: &str) -> bool {
    matches!(
        name,
        "," | ";"
            | ":"
            | "!"
            | " "
            | "\\"
            | "quad"
            | "qquad"
            | "enspace"
            | "thinspace"
            | "medspace"
            | "thickspace"
            | "newline"
            | "cr"
    ) || name.chars().all(char::is_whitespace)
}

/// Commands whose brace argument is not spoken either.
pub(super) fn hides_argument(name: &str) -> bool {
    matches!(
        name,
        "begin"
            | "end"
            | "hspace"
            | "vspace"
            | "label"
            | "tag"
            | "color"
            | "textcolor"
            | "phantom"
            | "hphantom"
            | "vphantom"
    )
}

/// Sizing commands whose delimiter `.` stands for nothing (`\left. x \right|`).
pub(super) fn is_sizing(name: &str) -> bool {
    matches!(
        name,
        "left"
            | "right"
            | "big"
            | "Big"
            | "bigg"
            | "Bigg"
            | "bigl"
            | "bigr"
            | "Bigl"
            | "Bigr"
            | "biggl"
            | "biggr"
            | "Biggl"
            | "Biggr"
    )
}

pub(super) fn is_big_operator(name: &str) -> bool {
    matches!(
        name,
        "lim"
            | "limsup"
            | "liminf"
            | "sum"
            | "prod"
            | "int"
            | "iint"
            | "iiint"
            | "oint"
            | "bigcup"
            | "bigcap"
    )
}

/// A lone letter: a variable in math (`x`, `θ`).
pub(super) fn is_var(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c.is_ascii_alphabetic() || greek_name(c).is_some())
}

/// `dy` → "d y", `d` → "d" (the parts of `dy/dx`).
pub(super) fn d_word(word: &str) -> Option<String> {
    match word.as_bytes() {
        [b'd'] => Some("d".to_owned()),
        [b'd', c] if c.is_ascii_alphabetic() => Some(format!("d {}", *c as char)),
        _ => None,
    }
}

/// `w/o` and its kind are abbreviations, not fractions.
pub(super) const SLASH_ABBREVIATIONS: &[&str] = &[
    "w/o", "n/a", "c/o", "a/c", "b/c", "w/e", "i/o", "s/o", "y/o",
];

/// Numbers joined by a hyphen that are names, not ranges.
pub(super) const DASH_NAMES: &[&str] = &["50-50", "24-7", "9-5"];

/// Slashed numbers that are names, not fractions.
pub(super) const SLASH_NAMES: &[&str] = &["24/7", "9/11", "50/50"];
