//! A small terminal for tests: the screen a program's output leaves, from the escape
//! sequences a crossterm program writes (cursor moves, clears, colours, the alternate
//! screen). Enough to read what the lab drew; not a full emulator.

#![allow(dead_code)]

pub struct Screen {
    pub width: usize,
    pub height: usize,
    cells: Vec<Vec<String>>,
    x: usize,
    y: usize,
    /// Bytes of a character or a sequence not complete yet.
    pending: Vec<u8>,
}

fn width_of(s: &str) -> usize {
    ratatui::text::Span::raw(s).width()
}

impl Screen {
    pub fn new(width: usize, height: usize) -> Screen {
        Screen {
            width,
            height,
            cells: vec![vec![" ".to_string(); width]; height],
            x: 0,
            y: 0,
            pending: Vec::new(),
        }
    }

    fn clear(&mut self) {
        for row in &mut self.cells {
            row.iter_mut().for_each(|c| *c = " ".into());
        }
    }

    fn put(&mut self, ch: char) {
        let s = ch.to_string();
        let w = width_of(&s);
        if w == 0 {
            return;
        }
        if self.x >= self.width {
            // A character after the last column wraps, as a terminal's does.
            self.x = 0;
            self.y = (self.y + 1).min(self.height - 1);
        }
        self.cells[self.y][self.x] = s;
        if w == 2 && self.x + 1 < self.width {
            self.cells[self.y][self.x + 1] = String::new();
        }
        self.x += w;
    }

    fn csi(&mut self, params: &str, fin: char) {
        let nums: Vec<usize> = params
            .trim_start_matches(['?', '>', '<', '='])
            .split(';')
            .map(|p| p.parse().unwrap_or(0))
            .collect();
        let n = |i: usize, d: usize| nums.get(i).copied().filter(|&v| v > 0).unwrap_or(d);
        match fin {
            'H' | 'f' => {
                self.y = (n(0, 1) - 1).min(self.height - 1);
                self.x = (n(1, 1) - 1).min(self.width - 1);
            }
            'A' => self.y = self.y.saturating_sub(n(0, 1)),
            'B' => self.y = (self.y + n(0, 1)).min(self.height - 1),
            'C' => self.x = (self.x + n(0, 1)).min(self.width - 1),
            'D' => self.x = self.x.saturating_sub(n(0, 1)),
            'G' => self.x = (n(0, 1) - 1).min(self.width - 1),
            'd' => self.y = (n(0, 1) - 1).min(self.height - 1),
            'J' => match nums.first().copied().unwrap_or(0) {
                0 => {
                    for x in self.x..self.width {
                        self.cells[self.y][x] = " ".into();
                    }
                    for y in self.y + 1..self.height {
                        self.cells[y].iter_mut().for_each(|c| *c = " ".into());
                    }
                }
                _ => self.clear(),
            },
            'K' => {
                for x in self.x..self.width {
                    self.cells[self.y][x] = " ".into();
                }
            }
            'X' => {
                for x in self.x..(self.x + n(0, 1)).min(self.width) {
                    self.cells[self.y][x] = " ".into();
                }
            }
            // The alternate screen starts blank.
            'h' if params == "?1049" => self.clear(),
            _ => {}
        }
    }

    /// Take in what the program wrote; a sequence cut between two reads waits for the rest.
    pub fn feed(&mut self, bytes: &[u8]) {
        let mut data = std::mem::take(&mut self.pending);
        data.extend_from_slice(bytes);
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            match b {
                0x1b => {
                    let Some(&next) = data.get(i + 1) else {
                        break;
                    };
                    match next {
                        b'[' => {
                            let start = i + 2;
                            let Some(end) =
                                (start..data.len()).find(|&j| (0x40..=0x7e).contains(&data[j]))
                            else {
                                break;
                            };
                            let params = String::from_utf8_lossy(&data[start..end]).to_string();
                            self.csi(&params, data[end] as char);
                            i = end + 1;
                        }
                        b']' => {
                            // To BEL or ST.
                            let end = (i + 2..data.len()).find(|&j| {
                                data[j] == 0x07
                                    || (data[j] == 0x1b && data.get(j + 1) == Some(&b'\\'))
                            });
                            let Some(end) = end else { break };
                            i = end + if data[end] == 0x07 { 1 } else { 2 };
                        }
                        b'(' | b')' => {
                            if i + 2 >= data.len() {
                                break;
                            }
                            i += 3;
                        }
                        _ => i += 2,
                    }
                }
                b'\r' => {
                    self.x = 0;
                    i += 1;
                }
                b'\n' => {
                    self.y = (self.y + 1).min(self.height - 1);
                    i += 1;
                }
                0x08 => {
                    self.x = self.x.saturating_sub(1);
                    i += 1;
                }
                0..=0x1f | 0x7f => i += 1,
                _ => {
                    let len = match b {
                        0xf0..=0xf7 => 4,
                        0xe0..=0xef => 3,
                        0xc0..=0xdf => 2,
                        _ => 1,
                    };
                    if i + len > data.len() {
                        break;
                    }
                    let s = String::from_utf8_lossy(&data[i..i + len]).to_string();
                    for ch in s.chars() {
                        self.put(ch);
                    }
                    i += len;
                }
            }
        }
        self.pending = data[i..].to_vec();
    }

    /// The screen's rows, trailing blanks kept so columns line up.
    pub fn rows(&self) -> Vec<String> {
        self.cells.iter().map(|r| r.concat()).collect()
    }

    /// The cells of row `y`, one string a column (empty behind a wide character).
    pub fn row_cells(&self, y: usize) -> &[String] {
        &self.cells[y]
    }

    pub fn text(&self) -> String {
        self.rows()
            .iter()
            .map(|r| r.trim_end().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }
}
