//! Integer expressions of lesson sizes (`"n / 256"`, `"ceil_div(n, 32) * 4"`, `"1 << 24"`):
//! 64-bit signed, `+ - * / %`, the shifts `<<` and `>>` (binding looser than `+` and `-`, as
//! in C), parentheses, unary minus, names and `min`, `max`, `ceil_div`.
//! Errors carry the column within the expression so the loader can point into the YAML value.

use std::fmt;
use thiserror::Error;

/// What went wrong, and where: `col` is the 0-based character offset in the expression text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ExprError {
    pub col: usize,
    pub message: String,
    /// The name, when the error is an unknown name (so that a caller can stay quiet about a
    /// name whose own definition already failed).
    pub unknown: Option<String>,
}

pub const FUNCTIONS: [&str; 3] = ["min", "max", "ceil_div"];

/// How deep parentheses, unary minus signs and calls may nest. The parser recurses once per
/// level, so a hostile `len:` of 50,000 minus signs would overflow the stack; no size needs
/// more than a handful.
pub const MAX_DEPTH: usize = 64;

/// Evaluate `text` with the names of `env` (later entries shadow earlier ones).
pub fn eval(text: &str, env: &[(String, i64)]) -> Result<i64, ExprError> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        env,
        end_col: text.chars().count(),
        depth: 0,
    };
    let v = p.expr()?;
    match p.peek() {
        None => Ok(v),
        Some(t) => Err(err(t.col, format!("unexpected `{}`", t.tok))),
    }
}

/// True when `s` is a name as the format defines it: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn err(col: usize, message: impl Into<String>) -> ExprError {
    ExprError {
        col,
        message: message.into(),
        unknown: None,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(char),
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Num(n) => write!(f, "{n}"),
            Tok::Name(s) => f.write_str(s),
            // A shift is one token of two characters.
            Tok::Op(c @ ('<' | '>')) => write!(f, "{c}{c}"),
            Tok::Op(c) => write!(f, "{c}"),
        }
    }
}

struct Token {
    tok: Tok,
    col: usize,
}

fn tokenize(text: &str) -> Result<Vec<Token>, ExprError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let lit: String = chars[start..i].iter().filter(|&&c| c != '_').collect();
            let n = lit.parse::<i64>().map_err(|_| {
                if lit.chars().all(|c| c.is_ascii_digit()) {
                    err(start, format!("`{lit}` does not fit in 64 bits"))
                } else {
                    err(start, format!("`{lit}` is not an integer"))
                }
            })?;
            out.push(Token {
                tok: Tok::Num(n),
                col: start,
            });
        } else if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Name(chars[start..i].iter().collect()),
                col: start,
            });
        } else if "+-*/%(),".contains(c) {
            i += 1;
            out.push(Token {
                tok: Tok::Op(c),
                col: start,
            });
        } else if (c == '<' || c == '>') && chars.get(i + 1) == Some(&c) {
            // `<<` and `>>`, kept as one operator char; a lone `<` compares, which sizes
            // never do.
            i += 2;
            out.push(Token {
                tok: Tok::Op(c),
                col: start,
            });
        } else {
            return Err(err(start, format!("unexpected character `{c}`")));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<Token>,
    pos: usize,
    env: &'a [(String, i64)],
    end_col: usize,
    /// Levels of nesting entered, up to `MAX_DEPTH`.
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn peek_op(&self) -> Option<(char, usize)> {
        match self.peek() {
            Some(Token {
                tok: Tok::Op(c),
                col,
            }) => Some((*c, *col)),
            _ => None,
        }
    }

    fn expect_op(&mut self, want: char) -> Result<(), ExprError> {
        match self.peek() {
            Some(Token {
                tok: Tok::Op(c), ..
            }) if *c == want => {
                self.pos += 1;
                Ok(())
            }
            Some(t) => Err(err(t.col, format!("expected `{want}`, found `{}`", t.tok))),
            None => Err(err(self.end_col, format!("expected `{want}` at the end"))),
        }
    }

    /// expr := sum (('<<' | '>>') sum)*
    fn expr(&mut self) -> Result<i64, ExprError> {
        let mut acc = self.sum()?;
        while let Some((op @ ('<' | '>'), col)) = self.peek_op() {
            self.pos += 1;
            let by = self.sum()?;
            acc = shift(acc, op, by, col)?;
        }
        Ok(acc)
    }

    /// sum := term (('+' | '-') term)*
    fn sum(&mut self) -> Result<i64, ExprError> {
        let mut acc = self.term()?;
        while let Some((op @ ('+' | '-'), col)) = self.peek_op() {
            self.pos += 1;
            let rhs = self.term()?;
            let r = if op == '+' {
                acc.checked_add(rhs)
            } else {
                acc.checked_sub(rhs)
            };
            acc = r.ok_or_else(|| overflow(col, acc, op, rhs))?;
        }
        Ok(acc)
    }

    /// term := unary (('*' | '/' | '%') unary)*
    fn term(&mut self) -> Result<i64, ExprError> {
        let mut acc = self.unary()?;
        while let Some((op @ ('*' | '/' | '%'), col)) = self.peek_op() {
            self.pos += 1;
            let rhs = self.unary()?;
            if op != '*' && rhs == 0 {
                return Err(err(col, format!("division by zero in `{acc} {op} 0`")));
            }
            let r = match op {
                '*' => acc.checked_mul(rhs),
                '/' => acc.checked_div(rhs),
                _ => acc.checked_rem(rhs),
            };
            acc = r.ok_or_else(|| overflow(col, acc, op, rhs))?;
        }
        Ok(acc)
    }

    /// Enter one more level of nesting at `col`, refused past `MAX_DEPTH`.
    fn deeper(&mut self, col: usize) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(err(
                col,
                format!("nested too deeply (more than {MAX_DEPTH} levels of `(`, `-` or calls)"),
            ));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<i64, ExprError> {
        if let Some(('-', col)) = self.peek_op() {
            self.pos += 1;
            self.deeper(col)?;
            let v = self.unary()?;
            self.depth -= 1;
            return v
                .checked_neg()
                .ok_or_else(|| err(col, format!("overflow: -({v}) does not fit in 64 bits")));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<i64, ExprError> {
        let Some(t) = self.tokens.get(self.pos) else {
            return Err(err(self.end_col, "expression ends too early"));
        };
        let col = t.col;
        match t.tok.clone() {
            Tok::Num(n) => {
                self.pos += 1;
                Ok(n)
            }
            Tok::Op('(') => {
                self.pos += 1;
                self.deeper(col)?;
                let v = self.expr()?;
                self.expect_op(')')?;
                self.depth -= 1;
                Ok(v)
            }
            Tok::Op(c) => Err(err(col, format!("unexpected `{c}`"))),
            Tok::Name(name) => {
                self.pos += 1;
                if let Some(('(', _)) = self.peek_op() {
                    self.pos += 1;
                    self.deeper(col)?;
                    let v = self.call(&name, col);
                    self.depth -= 1;
                    return v;
                }
                self.lookup(&name, col)
            }
        }
    }

    fn lookup(&self, name: &str, col: usize) -> Result<i64, ExprError> {
        if let Some((_, v)) = self.env.iter().rev().find(|(n, _)| n == name) {
            return Ok(*v);
        }
        let known: Vec<&str> = self.env.iter().map(|(n, _)| n.as_str()).collect();
        let known = if known.is_empty() {
            "none are defined".to_string()
        } else {
            format!("known names: {}", known.join(", "))
        };
        Err(ExprError {
            unknown: Some(name.to_string()),
            ..err(col, format!("unknown name `{name}` ({known})"))
        })
    }

    /// After `name(`: two comma-separated arguments and `)`.
    fn call(&mut self, name: &str, col: usize) -> Result<i64, ExprError> {
        if !FUNCTIONS.contains(&name) {
            return Err(err(
                col,
                format!(
                    "unknown function `{name}` (functions: {})",
                    FUNCTIONS.join(", ")
                ),
            ));
        }
        let a = self.expr()?;
        self.expect_op(',')?;
        let b = self.expr()?;
        self.expect_op(')')?;
        match name {
            "min" => Ok(a.min(b)),
            "max" => Ok(a.max(b)),
            _ => ceil_div(a, b).ok_or_else(|| {
                if b == 0 {
                    err(col, format!("division by zero in `ceil_div({a}, 0)`"))
                } else {
                    err(col, format!("overflow in `ceil_div({a}, {b})`"))
                }
            }),
        }
    }
}

fn overflow(col: usize, a: i64, op: char, b: i64) -> ExprError {
    err(
        col,
        format!("overflow: `{a} {op} {b}` does not fit in 64 bits"),
    )
}

/// `a << by` (`op` '<') or `a >> by` ('>'): a shift past the 64 bits, or by a negative
/// count, is an error rather than C's undefined behaviour, and so is a left shift whose
/// value does not fit.
fn shift(a: i64, op: char, by: i64, col: usize) -> Result<i64, ExprError> {
    let sym = if op == '<' { "<<" } else { ">>" };
    if !(0..64).contains(&by) {
        return Err(err(
            col,
            format!("`{a} {sym} {by}` shifts by {by}: a shift is by 0 to 63 bits"),
        ));
    }
    if op == '>' {
        return Ok(a >> by);
    }
    // 1 << 63 is no i64: that shift is two multiplications.
    let shifted = match by {
        63 => a.checked_mul(1 << 62).and_then(|x| x.checked_mul(2)),
        _ => a.checked_mul(1 << by),
    };
    shifted.ok_or_else(|| {
        err(
            col,
            format!("overflow: `{a} << {by}` does not fit in 64 bits"),
        )
    })
}

/// Rounds the quotient toward positive infinity (for any signs).
fn ceil_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    if r != 0 && ((r > 0) == (b > 0)) {
        q.checked_add(1)
    } else {
        Some(q)
    }
}

#[cfg(test)]
#[path = "expr_tests.rs"]
mod tests;
