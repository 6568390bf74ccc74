//! A simulated device for the tests: an announced size, an address map
//! (honest, wrapping, ignoring address bits, losing writes, funnelling them
//! onto a few blocks) and a sparse store, so a 128 GiB fake costs only the
//! blocks written to it.
//!
//! By default every block is real bytes, stamped by `fill` and judged by
//! `classify`. [`SimDevice::symbolic`] keeps stamps as (offset, pass,
//! generation) and judges them by the same rules without the bytes, so
//! the property tests (hundreds of probes, unoptimised) stay fast.

use crate::io::rng::{Rng, splitmix64};
use crate::verify::block::{BLOCK, BLOCK_U64, BlockState, classify, classify_generation, fill_generation};
use crate::verify::probe::{Backup, Probe, ProbeReport, Round};
use crate::verify::tally::VerifyTally;
use std::collections::HashMap;

/// What a block the device does not keep reads back as.
#[derive(Clone, Copy, Debug)]
pub enum Lost {
    Zeros,
    Ones,
    /// Different random bytes on every read.
    Garbage,
    /// A read error.
    Eio,
    /// The block an earlier pass wrote there.
    Stale(u64),
}

/// Where a logical offset's data lives.
#[derive(Clone, Copy, Debug)]
pub enum Map {
    Honest,
    /// Offsets modulo `real`.
    Wrap {
        real: u64,
    },
    /// The address bits in `mask` are ignored.
    IgnoreBits {
        mask: u64,
    },
    /// From `real` on, writes are lost and reads give `reads`.
    Lose {
        real: u64,
        reads: Lost,
    },
    /// From `real` on, everything lands on `slots` blocks.
    Funnel {
        real: u64,
        slots: u64,
    },
}

/// A block's content.
#[derive(Clone, Debug, PartialEq)]
enum Content {
    Bytes(Vec<u8>),
    Zeros,
    Ones,
    /// Random bytes from a seed.
    Noise(u64),
    /// A stamped block, kept as its header.
    Stamp {
        offset: u64,
        pass: u64,
        generation: u64,
    },
}

impl Content {
    fn bytes(&self) -> Vec<u8> {
        let mut b = vec![0u8; BLOCK];
        match *self {
            Content::Bytes(ref v) => b.copy_from_slice(v),
            Content::Zeros => {}
            Content::Ones => b.fill(0xff),
            Content::Noise(seed) => Rng::new(seed).fill(&mut b),
            Content::Stamp { offset, pass, generation } => fill_generation(&mut b, offset, pass, generation),
        }
        b
    }

    /// What `classify_generation(self.bytes(), …)` says, without the bytes
    /// when it can.
    fn state(&self, expected_offset: u64, pass: u64, generation: u64) -> BlockState {
        match *self {
            Content::Bytes(ref b) => classify_generation(b, expected_offset, pass, generation),
            Content::Zeros | Content::Ones => BlockState::Blank,
            Content::Noise(_) => BlockState::Garbage,
            Content::Stamp {
                offset,
                pass: p,
                generation: g,
            } => {
                if p != pass {
                    BlockState::Stale { pass: p }
                } else if offset != expected_offset {
                    BlockState::Misplaced { written_for: offset }
                } else if g != generation {
                    BlockState::Stale { pass }
                } else {
                    BlockState::Good
                }
            }
        }
    }
}

enum Place {
    At(u64),
    Nowhere(Lost),
}

pub struct SimDevice {
    pub announced: u64,
    pub map: Map,
    /// Physical block → content; absent blocks hold their pristine content.
    store: HashMap<u64, Content>,
    /// Pristine content: zeros, or random per physical block.
    random_pristine: bool,
    /// Stamps as headers (see the module documentation).
    symbolic: bool,
    reads: u64,
}

impl SimDevice {
    pub fn new(announced: u64, map: Map) -> SimDevice {
        SimDevice {
            announced,
            map,
            store: HashMap::new(),
            random_pristine: false,
            symbolic: false,
            reads: 0,
        }
    }

    /// The same with random bytes in every block before anything is written.
    pub fn with_old_data(mut self) -> SimDevice {
        self.random_pristine = true;
        self
    }

    /// The same, keeping stamps as headers.
    pub fn symbolic(mut self) -> SimDevice {
        self.symbolic = true;
        self
    }

    fn place(&self, off: u64) -> Place {
        assert!(
            off.is_multiple_of(BLOCK_U64) && off < self.announced,
            "offset {off} out of the device"
        );
        match self.map {
            Map::Honest => Place::At(off),
            Map::Wrap { real } => Place::At(off % real),
            Map::IgnoreBits { mask } => Place::At(off & !mask),
            Map::Lose { real, reads } if off >= real => Place::Nowhere(reads),
            Map::Funnel { real, slots } if off >= real => Place::At(real + (off / BLOCK_U64 % slots) * BLOCK_U64),
            Map::Lose { .. } | Map::Funnel { .. } => Place::At(off),
        }
    }

    fn pristine(&self, phys: u64) -> Content {
        if self.random_pristine {
            Content::Noise(splitmix64(phys ^ 0xdead))
        } else {
            Content::Zeros
        }
    }

    fn put(&mut self, off: u64, c: Content) {
        if let Place::At(p) = self.place(off) {
            self.store.insert(p, c);
        }
    }

    /// Writes raw bytes.
    pub fn write(&mut self, off: u64, data: &[u8]) {
        assert_eq!(data.len(), BLOCK);
        self.put(off, Content::Bytes(data.to_vec()));
    }

    /// Writes the stamped block (offset, pass, generation).
    fn write_stamp(&mut self, offset: u64, pass: u64, generation: u64) {
        let c = Content::Stamp { offset, pass, generation };
        let c = if self.symbolic { c } else { Content::Bytes(c.bytes()) };
        self.put(offset, c);
    }

    /// What a read of `off` returns; `None`: a read error.
    fn content(&mut self, off: u64) -> Option<Content> {
        self.reads += 1;
        match self.place(off) {
            Place::At(p) => Some(self.store.get(&p).cloned().unwrap_or_else(|| self.pristine(p))),
            Place::Nowhere(Lost::Zeros) => Some(Content::Zeros),
            Place::Nowhere(Lost::Ones) => Some(Content::Ones),
            Place::Nowhere(Lost::Garbage) => Some(Content::Noise(splitmix64(off ^ self.reads))),
            Place::Nowhere(Lost::Eio) => None,
            Place::Nowhere(Lost::Stale(pass)) => Some(Content::Stamp {
                offset: off,
                pass,
                generation: 0,
            }),
        }
    }

    /// The block at `off` as bytes, or `None` for a read error.
    pub fn read(&mut self, off: u64) -> Option<Vec<u8>> {
        self.content(off).map(|c| c.bytes())
    }

    /// Physical blocks whose content differs from their pristine content.
    pub fn changed_blocks(&self) -> usize {
        self.store.iter().filter(|(p, c)| c.bytes() != self.pristine(**p).bytes()).count()
    }

    /// Runs one probe round as the I/O layer would: the writes in order,
    /// then the reads, each classified.
    pub fn run_round(&mut self, round: &Round, pass: u64) -> Vec<BlockState> {
        for &o in &round.writes {
            self.write_stamp(o, pass, round.generation);
        }
        round
            .reads
            .iter()
            .map(|&o| match self.content(o) {
                Some(c) => c.state(o, pass, round.generation),
                None => BlockState::Unreadable,
            })
            .collect()
    }

    /// A whole probe of this device.
    pub fn probe(&mut self, granularity: u64) -> ProbeReport {
        let pass = 0x0bad_c0de_f00d;
        Probe::new(self.announced, granularity).run(|r| self.run_round(r, pass))
    }

    /// A whole probe that saves every block before overwriting it and
    /// writes them all back at the end; returns the report and the backup.
    pub fn probe_and_restore(&mut self, granularity: u64) -> (ProbeReport, Backup) {
        let pass = 0x0bad_c0de_f00d;
        let mut backup = Backup::new();
        let mut saved: HashMap<u64, Vec<u8>> = HashMap::new();
        let report = Probe::new(self.announced, granularity).run(|r| {
            for o in backup.to_save(r) {
                saved.insert(o, self.read(o).expect("readable"));
            }
            self.run_round(r, pass)
        });
        for o in backup.restore_order() {
            let data = saved[&o].clone();
            self.write(o, &data);
        }
        (report, backup)
    }

    /// A whole verify pass: every block written in ascending order, then
    /// read back in order into a tally (always with real bytes).
    pub fn verify(&mut self, pass: u64) -> VerifyTally {
        let blocks = self.announced / BLOCK_U64;
        for k in 0..blocks {
            let c = Content::Stamp {
                offset: k * BLOCK_U64,
                pass,
                generation: 0,
            };
            self.put(k * BLOCK_U64, Content::Bytes(c.bytes()));
        }
        let mut t = VerifyTally::new();
        for k in 0..blocks {
            let o = k * BLOCK_U64;
            let s = match self.read(o) {
                Some(b) => classify(&b, o, pass),
                None => BlockState::Unreadable,
            };
            t.push(o, s);
        }
        t
    }
}

/// The symbolic judgement agrees with `classify_generation` on real bytes.
#[test]
fn symbolic_states_match_real_ones() {
    let contents = [
        Content::Zeros,
        Content::Ones,
        Content::Noise(3),
        Content::Stamp {
            offset: 8192,
            pass: 1,
            generation: 2,
        },
    ];
    for c in contents {
        for (off, pass, generation) in [(8192, 1, 2), (4096, 1, 2), (8192, 2, 2), (8192, 1, 3), (0, 5, 0)] {
            assert_eq!(
                c.state(off, pass, generation),
                classify_generation(&c.bytes(), off, pass, generation),
                "{c:?} at ({off}, {pass}, {generation})"
            );
        }
    }
}
