//! One function's body: declarations, labels, `.loc`, and each instruction decoded with its
//! operands; calls resolved to the callee and the caller's parameter offsets.

use super::decode::{Ctx, align_up, decl_of, header, param_layout};
use super::lex::{Line, Stmt};
use super::mem::LOCAL_WIN;
use super::opcode::parse_op;
use super::operand::{Names, Opnd, Sym, operand};
use super::ops::{Op, Space};
use super::program::{Call, Func, Instr};
use super::{Place, Unmodelled, Unsupported};
use crate::trace::instrument::split_operands;

struct State {
    names: Names,
    instrs: Vec<Instr>,
    loc: Option<u32>,
    params_end: u64,
}

/// Decode the function whose header is `lines[start]`; the index after its body.
pub fn function(ctx: &mut Ctx, h: &str, lines: &[Line], start: usize) -> usize {
    let (ret, name, params) = header(h);
    let idx = ctx.func_names[&name];
    let mut names = Names::default();
    names.syms = ctx.module_syms.clone();
    let mut st = State {
        names,
        instrs: Vec::new(),
        loc: None,
        params_end: 0,
    };
    let formal = param_layout(&params, &mut st.names, &mut st.params_end);
    let retval = ret.and_then(|r| {
        param_layout(&[r], &mut st.names, &mut st.params_end)
            .first()
            .copied()
    });
    let mut i = start + 1;
    while i < lines.len() {
        let line = lines[i].line;
        match &lines[i].stmt {
            Stmt::EndFunc => break,
            Stmt::Label(l) => {
                st.names.labels.insert(l.clone(), st.instrs.len() as u32);
            }
            Stmt::Text(t) => statement(ctx, &mut st, t, line),
            Stmt::Header(..) => break,
        }
        i += 1;
    }
    let labels = patch_labels(&mut st, ctx.unsupported);
    let _ = labels;
    let mut f = Func {
        name,
        entry: h.contains(".entry"),
        has_body: true,
        nregs: st.names.nregs(),
        npreds: st.names.npreds(),
        params: formal,
        retval,
        param_bytes: align_up(st.params_end, 8) as u32,
        instrs: st.instrs,
        reconverge: Vec::new(),
    };
    f.reconverge = super::cfg::reconvergence(&f.instrs);
    ctx.prog.funcs[idx] = f;
    i + 1
}

/// Label operands name `label_uses`; make them instruction indices.
fn patch_labels(st: &mut State, unsupported: &mut Vec<Unsupported>) -> usize {
    let uses = std::mem::take(&mut st.names.label_uses);
    for ins in &mut st.instrs {
        for o in ins.src.iter_mut().chain(ins.dst.iter_mut()) {
            if let Opnd::Label(k) = o {
                let name = &uses[*k as usize];
                match st.names.labels.get(name) {
                    Some(&pc) => *k = pc,
                    None => unsupported.push(Unsupported {
                        place: ins.place,
                        text: ins.text.clone(),
                        why: format!("`{name}` is no label or variable here").into(),
                    }),
                }
            }
        }
    }
    uses.len()
}

/// The kernel file's line a `.loc` is about: its own (file 1, the kernel's source), or the
/// line a header function was inlined at; None for a header line inlined into another
/// (the line in force stays).
fn kernel_line(loc: &str) -> Option<u32> {
    let nums = |s: &str| -> Vec<u32> {
        (s.split([' ', '\t', ',']).filter(|x| !x.is_empty()))
            .map_while(|x| x.parse().ok())
            .collect()
    };
    let own = nums(loc);
    if let [1, line, ..] = own[..] {
        return Some(line).filter(|&l| l > 0);
    }
    let (_, at) = loc.split_once("inlined_at")?;
    match nums(at)[..] {
        [1, line, ..] if line > 0 => Some(line),
        _ => None,
    }
}

fn statement(ctx: &mut Ctx, st: &mut State, t: &str, line: u32) {
    let place = Place {
        ptx_line: line,
        source_line: st.loc,
    };
    if let Some(rest) = t
        .strip_prefix(".loc")
        .filter(|r| r.starts_with(char::is_whitespace))
    {
        st.loc = kernel_line(rest).or(st.loc);
        return;
    }
    if t.starts_with(".reg") {
        st.names.declare(t);
        return;
    }
    if t.starts_with('.') {
        declare(ctx, st, t, place);
        return;
    }
    match instruction(ctx, st, t, place) {
        Ok(ins) => st.instrs.push(ins),
        Err(why) => ctx.unsupported.push(Unsupported {
            place,
            text: t.to_string(),
            why,
        }),
    }
}

/// A declaration inside a body: local arrays, call parameters; others are refused.
fn declare(ctx: &mut Ctx, st: &mut State, t: &str, place: Place) {
    let Some((space, align, bytes, name)) = decl_of(t) else {
        return;
    };
    match space {
        Space::Local => {
            let at = align_up(u64::from(ctx.prog.local_bytes), align);
            // Past 4 GiB it is past every GPU's limit anyway; the launch refuses it.
            ctx.prog.local_bytes = u32::try_from(at.saturating_add(bytes)).unwrap_or(u32::MAX);
            st.names.syms.insert(name, Sym { addr: at });
            let _ = LOCAL_WIN;
        }
        // Demoted shared variables are laid out with the module's.
        Space::Shared => {}
        Space::Param => {
            param_layout(&[t.to_string()], &mut st.names, &mut st.params_end);
        }
        _ => ctx.unsupported.push(Unsupported {
            place,
            text: t.to_string(),
            why: "variables declared inside a function (other than local arrays)".into(),
        }),
    }
}

fn instruction(ctx: &Ctx, st: &mut State, t: &str, place: Place) -> Result<Instr, Unmodelled> {
    let mut rest = t.trim();
    let mut guard = None;
    if let Some(g) = rest.strip_prefix('@') {
        let end = g
            .find(char::is_whitespace)
            .ok_or("a guard with no instruction")?;
        match operand(&mut st.names, &g[..end])? {
            Opnd::Pred(p, neg) => guard = Some((p, neg)),
            _ => return Err("a guard that is not a predicate".into()),
        }
        rest = g[end..].trim_start();
    }
    let op_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let text = rest[..op_end].to_string();
    // Refused if a lane runs it (`Op::Unmodelled`), its operands unread.
    let op = parse_op(&text).unwrap_or(Op::Unmodelled);
    let args = rest[op_end..].trim();
    let mut ins = Instr {
        op,
        text,
        guard,
        dst: vec![],
        src: vec![],
        place,
        site: None,
        call: None,
        slice: Default::default(),
    };
    if op == Op::Unmodelled {
        return Ok(ins);
    }
    if op == Op::Call {
        ins.call = Some(Box::new(call(ctx, st, args)?));
        return Ok(ins);
    }
    let mut ops = Vec::new();
    for a in split_operands(args) {
        ops.push(match a.split_once('|') {
            Some((d, p)) => Opnd::Vec(vec![operand(&mut st.names, d)?, operand(&mut st.names, p)?]),
            None => operand(&mut st.names, a)?,
        });
    }
    let ndst = match op {
        Op::St { .. }
        | Op::Bra
        | Op::Ret
        | Op::Exit
        | Op::Trap
        | Op::Bar
        | Op::BarArrive
        | Op::BarWarp
        | Op::Fence
        | Op::Nop
        | Op::CpAsync { .. }
        | Op::CpCommit
        | Op::CpWait { .. }
        | Op::MbarInit
        | Op::BulkCopy => 0,
        Op::Atom { red: true, .. } => 0,
        _ => 1.min(ops.len()),
    };
    let src = ops.split_off(ndst);
    ins.dst = flatten_pair(ops);
    ins.src = src;
    Ok(ins)
}

/// `p|q` and `d|p` destinations become two.
fn flatten_pair(dst: Vec<Opnd>) -> Vec<Opnd> {
    match dst.as_slice() {
        [Opnd::Vec(v)] if v.len() == 2 && matches!(v[1], Opnd::Pred(..)) => v.clone(),
        _ => dst,
    }
}

/// `call.uni (retval0), f, (param0, param1)`.
fn call(ctx: &Ctx, st: &mut State, args: &str) -> Result<Call, Unmodelled> {
    let parts = split_operands(args);
    let mut k = 0;
    let mut ret = None;
    let offset = |st: &State, n: &str| -> Result<u32, Unmodelled> {
        st.names
            .syms
            .get(n.trim())
            .map(|s| s.addr as u32)
            .ok_or_else(|| format!("`{n}` is no parameter").into())
    };
    if let Some(r) = parts.first().and_then(|p| p.strip_prefix('(')) {
        let r = r.trim_end_matches(')').trim();
        if !r.is_empty() {
            ret = Some(offset(st, r)?);
        }
        k = 1;
    }
    let callee = parts
        .get(k)
        .ok_or("a call with no function")?
        .trim()
        .to_string();
    let func = *ctx
        .func_names
        .get(&callee)
        .ok_or(format!("`{callee}` is no function"))?;
    let mut list = Vec::new();
    if let Some(a) = parts.get(k + 1) {
        let inner = a.trim().trim_start_matches('(').trim_end_matches(')');
        for n in inner.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            list.push(offset(st, n)?);
        }
    }
    if parts.len() > k + 2 {
        return Err("calls through a prototype (indirect calls) are not interpreted".into());
    }
    Ok(Call {
        callee,
        func,
        args: list,
        ret,
    })
}
