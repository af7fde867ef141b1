//! The program the interpreter runs: its functions, each a list of decoded instructions,
//! and the module's variables laid out in their spaces. `decode` makes it from PTX text;
//! every other part of the interpreter reads it.

use super::Place;
use super::operand::Opnd;
use super::ops::{Op, Space};

#[derive(Debug, Clone)]
pub struct Call {
    pub callee: String,
    pub func: usize,
    /// Caller's parameter offsets of the arguments, and of the return value.
    pub args: Vec<u32>,
    pub ret: Option<u32>,
}

#[derive(Debug, Clone)]
pub struct Instr {
    pub op: Op,
    pub text: String,
    pub guard: Option<(u32, bool)>,
    pub dst: Vec<Opnd>,
    pub src: Vec<Opnd>,
    pub place: Place,
    pub site: Option<u32>,
    pub call: Option<Box<Call>>,
    /// What a trace-only run does with it.
    pub slice: super::slice::Slice,
}

#[derive(Debug, Clone, Default)]
pub struct Func {
    pub name: String,
    pub entry: bool,
    pub has_body: bool,
    pub instrs: Vec<Instr>,
    pub nregs: u32,
    pub npreds: u32,
    /// (offset, size) in the function's parameter area.
    pub params: Vec<(u32, u32)>,
    pub retval: Option<(u32, u32)>,
    pub param_bytes: u32,
    /// Per instruction: where a branch's lanes meet again (its immediate post-dominator),
    /// `NO_PC` for the function's end.
    pub reconverge: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    pub funcs: Vec<Func>,
    /// Bytes of static shared memory, from 0 (the reserved part included).
    pub shared_static: u32,
    /// Bytes of local memory a thread needs (all functions' frames, one after the other).
    pub local_bytes: u32,
    pub consts: Vec<u8>,
    /// Module `.global` variables, from `MODULE_GLOBALS`.
    pub globals: Vec<u8>,
    /// Module variables by name: (space, address in it, bytes).
    pub symbols: Vec<(String, Space, u64, u64)>,
}
