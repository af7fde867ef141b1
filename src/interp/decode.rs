//! PTX text to the interpreter's program: functions of decoded instructions, module
//! variables laid out in their spaces, labels as instruction indices, `.loc` kept for
//! messages. What the interpreter does not model is collected, every instance with its
//! place, so a kernel is refused before it runs.

use std::collections::HashMap;

use super::lex::{Stmt, statements};
use super::mem::{MODULE_GLOBALS, SHARED_BASE};
use super::operand::{Names, Sym, parse_int};
use super::ops::Space;
use super::program::{Func, Program};
use super::{Place, Unmodelled, Unsupported};

/// A declaration: `.shared .align 4 .b8 name[4096] = {...}`.
struct Decl {
    space: Option<Space>,
    align: u64,
    elem: u64,
    name: String,
    count: u64,
    init: Vec<u64>,
}

impl Decl {
    /// Its size; a count no memory could hold saturates, and is refused by a limit.
    fn bytes(&self) -> u64 {
        self.elem.saturating_mul(self.count)
    }
}

/// Module `__constant__` memory a GPU has: one 64 KiB bank.
const CONST_BANK: u64 = 64 << 10;
/// Module `__device__` variables the interpreter holds at once, in one allocation.
const MODULE_GLOBALS_MAX: u64 = 1 << 30;

fn declaration(text: &str) -> Option<Decl> {
    let (head, init) = match text.split_once('=') {
        Some((h, i)) => (h, Some(i)),
        None => (text, None),
    };
    let mut d = Decl {
        space: None,
        align: 1,
        elem: 1,
        name: String::new(),
        count: 1,
        init: vec![],
    };
    let mut toks = head.split_whitespace().peekable();
    while let Some(t) = toks.next() {
        match t {
            ".shared" => d.space = Some(Space::Shared),
            ".global" => d.space = Some(Space::Global),
            ".const" => d.space = Some(Space::Constant),
            ".local" => d.space = Some(Space::Local),
            ".param" => d.space = Some(Space::Param),
            ".align" => d.align = toks.next().and_then(|a| a.parse().ok()).unwrap_or(1),
            t if t.starts_with('.') => {
                if let Some(ty) = super::ops::ty_of(&t[1..]) {
                    d.elem = u64::from(ty.bits.max(8) / 8);
                }
            }
            t => {
                let (name, rest) = t.split_once('[').unwrap_or((t, ""));
                d.name = name.to_string();
                let n = rest.trim_end_matches(']');
                d.count = if rest.is_empty() {
                    1
                } else {
                    n.parse().unwrap_or(0)
                };
            }
        }
    }
    if let Some(i) = init {
        let inner = i.trim().trim_start_matches('{').trim_end_matches('}');
        d.init = inner
            .split(',')
            .filter_map(|v| parse_int(v).map(|x| x as u64))
            .collect();
    }
    d.space.map(|_| d)
}

fn align(x: u64, a: u64) -> u64 {
    x.div_ceil(a.max(1)).saturating_mul(a.max(1))
}

/// The module's state while decoding.
struct Builder {
    prog: Program,
    module_syms: HashMap<String, Sym>,
    unsupported: Vec<Unsupported>,
    shared_end: u64,
    func_names: HashMap<String, usize>,
}

impl Builder {
    fn module_var(&mut self, d: &Decl) {
        let bytes = d.bytes();
        let fill = |buf: &mut Vec<u8>, at: usize| {
            buf.resize(at + bytes as usize, 0);
            for (k, v) in d.init.iter().enumerate() {
                let e = d.elem as usize;
                let le = v.to_le_bytes();
                if (k + 1) * e <= bytes as usize {
                    buf[at + k * e..at + (k + 1) * e].copy_from_slice(&le[..e]);
                }
            }
        };
        let (space, addr) = match d.space {
            // Laid out beforehand (`layout_shared`).
            Some(Space::Shared) => return,
            Some(Space::Constant) => {
                let at = align(self.prog.consts.len() as u64, d.align);
                fill(&mut self.prog.consts, at as usize);
                (Space::Constant, at)
            }
            _ => {
                let at = align(self.prog.globals.len() as u64, d.align.max(8));
                fill(&mut self.prog.globals, at as usize);
                (Space::Global, MODULE_GLOBALS + at)
            }
        };
        self.module_syms.insert(d.name.clone(), Sym { addr });
        self.prog.symbols.push((d.name.clone(), space, addr, bytes));
    }
}

/// Why module variable `d` cannot be held, before its bytes are allocated: constants past
/// the GPU's bank, or `__device__` variables past what the interpreter holds at once.
fn too_big(prog: &Program, d: &Decl) -> Option<Unmodelled> {
    let (now, max, what) = match d.space {
        Some(Space::Constant) => (prog.consts.len(), CONST_BANK, "a GPU's __constant__ memory"),
        Some(Space::Shared) | None => return None,
        _ => (
            prog.globals.len(),
            MODULE_GLOBALS_MAX,
            "the interpreter's module variables",
        ),
    };
    let need = (now as u64).saturating_add(d.bytes());
    (need > max).then(|| {
        let (need, max) = (
            crate::analysis::limits::size(need),
            crate::analysis::limits::size(max),
        );
        format!(
            "`{}` needs {need} with the variables before it; {what} holds {max}",
            d.name
        )
        .into()
    })
}

/// `(.param .b32 r) name(.param .u64 a, ...)` → (return decl, name, parameter decls).
fn header_parts(h: &str) -> (Option<String>, String, Vec<String>) {
    let mut rest = h;
    let mut ret = None;
    let kw = rest
        .find(".entry")
        .or_else(|| rest.find(".func"))
        .unwrap_or(0);
    rest = rest[kw..]
        .split_once(char::is_whitespace)
        .map_or("", |x| x.1)
        .trim();
    if let Some(r) = rest.strip_prefix('(') {
        let close = r.find(')').unwrap_or(r.len());
        ret = Some(r[..close].trim().to_string());
        rest = r[close..].trim_start_matches(')').trim();
    }
    let name_end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    let name = rest[..name_end].to_string();
    let params = match (rest.find('('), rest.rfind(')')) {
        (Some(o), Some(c)) if c > o => rest[o + 1..c]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        _ => vec![],
    };
    (ret, name, params)
}

/// Decode a whole module. `Err` lists everything not modelled, each with its place.
pub fn decode(ptx: &str) -> Result<Program, Vec<Unsupported>> {
    let lines = statements(ptx);
    let mut b = Builder {
        prog: Program::default(),
        module_syms: HashMap::new(),
        unsupported: Vec::new(),
        shared_end: u64::from(SHARED_BASE),
        func_names: HashMap::new(),
    };
    // Function names first: a call may name a function defined further down.
    for l in &lines {
        if let Stmt::Header(h, _) = &l.stmt {
            let (_, name, _) = header_parts(h);
            if !b.func_names.contains_key(&name) {
                b.func_names.insert(name, b.func_names.len());
            }
        }
    }
    b.prog.funcs = vec![Func::default(); b.func_names.len()];
    layout_shared(&mut b, &lines);
    let mut i = 0;
    while i < lines.len() {
        match &lines[i].stmt {
            Stmt::Header(h, true) => i = super::body::function(&mut b_ctx(&mut b), h, &lines, i),
            Stmt::Header(h, false) => {
                // A prototype (`vprintf`): named, with no body.
                let (_, name, _) = header_parts(h);
                let f = &mut b.prog.funcs[b.func_names[&name]];
                if !f.has_body {
                    f.name = name;
                }
                i += 1;
            }
            Stmt::Text(t) => {
                if let Some(d) = declaration(t) {
                    match too_big(&b.prog, &d) {
                        Some(why) => b.unsupported.push(Unsupported {
                            place: Place {
                                ptx_line: lines[i].line,
                                source_line: None,
                            },
                            text: t.clone(),
                            why,
                        }),
                        None => b.module_var(&d),
                    }
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    if b.unsupported.is_empty() {
        Ok(b.prog)
    } else {
        Err(b.unsupported)
    }
}

/// Every shared variable, in the module or demoted into a function, in the order
/// written, from `SHARED_BASE`; `extern` (dynamic) shared memory after all of them.
fn layout_shared(b: &mut Builder, lines: &[super::lex::Line]) {
    let mut externs = Vec::new();
    for l in lines {
        let Stmt::Text(t) = &l.stmt else { continue };
        let Some(d) = declaration(t).filter(|d| d.space == Some(Space::Shared)) else {
            continue;
        };
        if t.contains(".extern") {
            externs.push(d);
            continue;
        }
        let at = align(b.shared_end, d.align);
        b.shared_end = at.saturating_add(d.bytes());
        b.module_syms.insert(d.name.clone(), Sym { addr: at });
        let bytes = d.bytes();
        b.prog.symbols.push((d.name, Space::Shared, at, bytes));
    }
    let end = align(b.shared_end, 16);
    for d in externs {
        let at = align(end, d.align);
        b.module_syms.insert(d.name.clone(), Sym { addr: at });
        b.prog.symbols.push((d.name, Space::Shared, at, 0));
    }
    // Beyond any GPU's limit either way; the launch refuses it with the figure.
    b.prog.shared_static = u32::try_from(end).unwrap_or(u32::MAX);
}

/// What `body` needs from the module being built.
pub struct Ctx<'a> {
    pub prog: &'a mut Program,
    pub module_syms: &'a HashMap<String, Sym>,
    pub unsupported: &'a mut Vec<Unsupported>,
    pub func_names: &'a HashMap<String, usize>,
}

fn b_ctx(b: &mut Builder) -> Ctx<'_> {
    Ctx {
        prog: &mut b.prog,
        module_syms: &b.module_syms,
        unsupported: &mut b.unsupported,
        func_names: &b.func_names,
    }
}

pub(super) fn param_layout(decls: &[String], names: &mut Names, at: &mut u64) -> Vec<(u32, u32)> {
    decls
        .iter()
        .filter_map(|p| declaration(p))
        .map(|d| {
            let off = align(*at, d.align.max(d.elem));
            let size = d.bytes();
            *at = off + size;
            names.syms.insert(d.name.clone(), Sym { addr: off });
            (off as u32, size as u32)
        })
        .collect()
}

pub(super) fn decl_of(text: &str) -> Option<(Space, u64, u64, String)> {
    declaration(text).map(|d| (d.space.unwrap_or(Space::Global), d.align, d.bytes(), d.name))
}

pub(super) fn header(h: &str) -> (Option<String>, String, Vec<String>) {
    header_parts(h)
}

pub(super) fn align_up(x: u64, a: u64) -> u64 {
    align(x, a)
}
