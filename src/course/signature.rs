//! A kernel's parameters read from its CUDA source, without a compiler: the `__global__`
//! declarations in the code (comments and string literals do not count), and what each
//! parameter is where its type is plain. The lesson loader checks `args:` against this when
//! there is no NVRTC; a check against the compiled entry can map its parameters to the same
//! `ParamKind`s and judge each argument with `arg_mismatch`.

use crate::model::Arg;

/// A `__global__` function as declared in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    /// Declared `extern "C"` (directly or inside an `extern "C" { }` block), so its name is
    /// not mangled.
    pub extern_c: bool,
    pub params: Vec<Param>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// As written, e.g. `const float* __restrict__ in`.
    pub text: String,
    pub kind: ParamKind,
}

/// What a parameter takes, where its type is plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    Pointer,
    Int {
        bytes: u8,
    },
    Float {
        bytes: u8,
    },
    /// A macro, a struct, a template parameter, a reference: not judged without a compiler.
    Unknown,
}

/// `src` with comments and the text of string and character literals blanked (line breaks
/// kept, so positions stay). The string of a linkage specification (`extern "C"`) is kept:
/// it says whether a kernel's name is mangled.
pub fn code_only(src: &str) -> String {
    blank_comments(src, false)
}

/// `src` with its comments blanked, character for character (so lines and columns stay
/// where they were); string and character literals are kept as written when `keep_strings`
/// (an `#include` names its file in one), else blanked but for a linkage specification's.
pub fn blank_comments(src: &str, keep_strings: bool) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('/', Some('/')) => {
                out.push(' ');
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                    out.push(' ');
                }
            }
            ('/', Some('*')) => {
                chars.next();
                out.push_str("  ");
                let mut prev = ' ';
                for n in chars.by_ref() {
                    out.push(blank(n));
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            ('"' | '\'', _) => {
                let keep = keep_strings || c == '"' && out.trim_end().ends_with("extern");
                out.push(c);
                while let Some(n) = chars.next() {
                    if n == '\\' {
                        out.push(if keep { n } else { ' ' });
                        if let Some(e) = chars.next() {
                            out.push(if keep { e } else { blank(e) });
                        }
                        continue;
                    }
                    if n == c || n == '\n' {
                        out.push(n);
                        break;
                    }
                    out.push(if keep { n } else { blank(n) });
                }
            }
            _ => out.push(c),
        }
    }
    out
}

fn blank(c: char) -> char {
    if c == '\n' { '\n' } else { ' ' }
}

/// Every `__global__` function of `src`, in order, each name once (a prototype and its
/// definition are one function; `extern "C"` on either counts).
pub fn global_functions(src: &str) -> Vec<Signature> {
    let code = code_only(src);
    let mut out: Vec<Signature> = Vec::new();
    for sig in scan(&code) {
        match out.iter_mut().find(|s| s.name == sig.name) {
            Some(first) => first.extern_c |= sig.extern_c,
            None => out.push(sig),
        }
    }
    out
}

/// The `__global__` function `name` of `src`, if it has one.
pub fn find(src: &str, name: &str) -> Option<Signature> {
    global_functions(src).into_iter().find(|s| s.name == name)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Walk the code once: braces (to know the `extern "C" { }` blocks), the start of each
/// statement, and each `__global__` declaration.
fn scan(code: &str) -> Vec<Signature> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut blocks: Vec<bool> = Vec::new();
    let mut stmt = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                blocks.push(has_extern_c(&code[stmt..i]));
                stmt = i + 1;
            }
            b'}' => {
                blocks.pop();
                stmt = i + 1;
            }
            b';' => stmt = i + 1,
            c if is_ident(c) && (i == 0 || !is_ident(b[i - 1])) => {
                let end = i + b[i..].iter().take_while(|&&c| is_ident(c)).count();
                if &code[i..end] == "__global__"
                    && let Some((name, params, close)) = declaration(code, end)
                {
                    out.push(Signature {
                        name,
                        extern_c: blocks.contains(&true) || has_extern_c(&code[stmt..i]),
                        params,
                    });
                    i = close;
                }
                i = i.max(end);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// `extern "C"` as two tokens, with any spacing between them.
fn has_extern_c(head: &str) -> bool {
    head.match_indices("extern").any(|(i, _)| {
        let before = head[..i].bytes().next_back().is_none_or(|c| !is_ident(c));
        before && head[i + "extern".len()..].trim_start().starts_with("\"C\"")
    })
}

/// After `__global__`: the function's name, its parameters and where its `)` ends. Attributes
/// with arguments (`__launch_bounds__(256)`) and template arguments are stepped over.
fn declaration(code: &str, from: usize) -> Option<(String, Vec<Param>, usize)> {
    let b = code.as_bytes();
    let mut name: Option<&str> = None;
    let mut i = from;
    while i < b.len() {
        match b[i] {
            c if is_ident(c) => {
                let end = i + b[i..].iter().take_while(|&&c| is_ident(c)).count();
                let word = &code[i..end];
                i = end;
                if ATTRIBUTES.contains(&word) {
                    let open = i + code[i..].len() - code[i..].trim_start().len();
                    if b.get(open) == Some(&b'(') {
                        i = matching(b, open, b'(', b')')?;
                    }
                } else {
                    name = Some(word);
                }
            }
            b'<' => i = matching(b, i, b'<', b'>')?,
            b'(' => {
                let close = matching(b, i, b'(', b')')?;
                let params = split_params(&code[i + 1..close - 1]);
                return Some((name?.to_string(), params, close));
            }
            b';' | b'{' | b'}' | b'=' => return None,
            _ => i += 1,
        }
    }
    None
}

const ATTRIBUTES: [&str; 4] = [
    "__launch_bounds__",
    "__attribute__",
    "__declspec",
    "__cluster_dims__",
];

/// The index just past the bracket that closes the one at `open`.
fn matching(b: &[u8], open: usize, o: u8, c: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &x) in b.iter().enumerate().skip(open) {
        if x == o {
            depth += 1;
        } else if x == c {
            depth -= 1;
            if depth == 0 {
                return Some(k + 1);
            }
        }
    }
    None
}

/// The parameters of a list, split at the commas outside brackets.
fn split_params(list: &str) -> Vec<Param> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (k, c) in list.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    let parts: Vec<String> = parts
        .iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    if parts.len() == 1 && (parts[0].is_empty() || parts[0] == "void") {
        return Vec::new();
    }
    parts
        .into_iter()
        .map(|text| Param {
            kind: kind_of(&text),
            text,
        })
        .collect()
}

const QUALIFIERS: [&str; 6] = [
    "const",
    "volatile",
    "__restrict__",
    "__restrict",
    "restrict",
    "register",
];

/// What a parameter's type is, where it is a pointer or a plain number.
pub fn kind_of(param: &str) -> ParamKind {
    let decl = param.split('=').next().unwrap_or(param);
    if decl.contains('&') {
        return ParamKind::Unknown;
    }
    if decl.contains('*') || decl.contains('[') {
        return ParamKind::Pointer;
    }
    let mut words: Vec<&str> = decl
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty() && !QUALIFIERS.contains(w))
        .collect();
    // The last word is the parameter's name, unless the type stands alone.
    if words.len() > 1 && plain(&words.join(" ")).is_none() {
        words.pop();
    }
    plain(&words.join(" ")).unwrap_or(ParamKind::Unknown)
}

/// The size of a plain type, for 64-bit Linux (where `long` is 8 bytes).
fn plain(ty: &str) -> Option<ParamKind> {
    let ty = ty
        .strip_suffix(" int")
        .filter(|t| !t.is_empty())
        .unwrap_or(ty);
    let int = |bytes| Some(ParamKind::Int { bytes });
    match ty {
        "bool" | "char" | "signed char" | "unsigned char" | "int8_t" | "uint8_t" => int(1),
        "short" | "unsigned short" | "int16_t" | "uint16_t" => int(2),
        "int" | "signed" | "unsigned" | "int32_t" | "uint32_t" | "uint" => int(4),
        "long" | "unsigned long" | "long long" | "unsigned long long" | "int64_t" | "uint64_t"
        | "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t" => int(8),
        // A texture object's handle is a 64-bit integer.
        "cudaTextureObject_t" | "CUtexObject" => int(8),
        "__half" | "half" => Some(ParamKind::Float { bytes: 2 }),
        "float" => Some(ParamKind::Float { bytes: 4 }),
        "double" => Some(ParamKind::Float { bytes: 8 }),
        _ => None,
    }
}

/// What the argument is, in words, when it does not fit a parameter of this kind (an
/// `Unknown` parameter takes anything: it cannot be judged).
pub fn arg_mismatch(arg: Arg, param: ParamKind) -> Option<&'static str> {
    let (what, fits) = match arg {
        Arg::Buffer(_) => ("a buffer (a pointer)", param == ParamKind::Pointer),
        Arg::I32(_) => ("an i32 (4 bytes)", param == ParamKind::Int { bytes: 4 }),
        Arg::U32(_) => ("a u32 (4 bytes)", param == ParamKind::Int { bytes: 4 }),
        Arg::I64(_) => ("an i64 (8 bytes)", param == ParamKind::Int { bytes: 8 }),
        Arg::U64(_) => ("a u64 (8 bytes)", param == ParamKind::Int { bytes: 8 }),
        Arg::F32(_) => ("an f32 (4 bytes)", param == ParamKind::Float { bytes: 4 }),
        Arg::Texture(_) => (
            "a texture object (8 bytes)",
            param == ParamKind::Int { bytes: 8 },
        ),
    };
    (!fits && param != ParamKind::Unknown).then_some(what)
}

/// What a parameter of this kind takes, in words, with what to write in `args` for it
/// (empty for `Unknown`); it follows the parameter's text after a comma.
pub fn param_words(param: ParamKind) -> String {
    match param {
        ParamKind::Pointer => ", a pointer: pass a buffer's name".into(),
        ParamKind::Int { bytes: 4 } => ", an integer of 4 bytes (write n, or { u32: n })".into(),
        ParamKind::Int { bytes: 8 } => {
            ", an integer of 8 bytes (write { i64: n } or { u64: n })".into()
        }
        ParamKind::Int { bytes } => {
            format!(", an integer of {bytes} bytes, which `args` cannot pass")
        }
        ParamKind::Float { bytes: 4 } => ", a float of 4 bytes (write { f32: x })".into(),
        ParamKind::Float { bytes } => {
            format!(", a float of {bytes} bytes, which `args` cannot pass")
        }
        ParamKind::Unknown => String::new(),
    }
}

#[cfg(test)]
#[path = "signature_tests.rs"]
mod tests;
