/**
 * The SPDY/3.1 pieces of the stream translator: header blocks a Go zlib reader takes (the zlib
 * header once, with SPDY/3's dictionary id; each block closed by an empty stored block, without
 * which Go's flate holds the block's bytes back until the next frame), frame layout, and frames
 * read back from chunks split anywhere.
 */
import zlib from 'node:zlib';
import t from 'tap';
import { FLAG_FIN, FrameType, HeaderBlockWriter, SpdyFrameReader, dataFrame, synStreamFrame } from '../../src/http/proxy/spdy-frames';
import { readHeaderBlock } from './connect-websocket-clients';

const SYNC_FLUSH_END = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

t.test('header blocks: one zlib stream with the dictionary id, each block ended as a sync flush ends it', async (t) => {
  const w = new HeaderBlockWriter();
  const first = w.encode({ streamType: 'error' });
  const second = w.encode({ streamtype: 'stdout' });
  t.equal((first[0] * 256 + first[1]) % 31, 0, 'a valid zlib header check');
  t.equal(first[0], 0x78);
  t.ok(first[1] & 0x20, 'FDICT is set');
  t.equal(first.readUInt32BE(2), 0xe3c6a7c2, "the Adler-32 of SPDY/3's dictionary");
  t.same(first.subarray(-5), SYNC_FLUSH_END);
  t.same(second.subarray(-5), SYNC_FLUSH_END);
  t.not(second[0], 0x78, 'the zlib header is sent once per session');
  t.same(readHeaderBlock(first, true), { streamtype: 'error' }, 'names lower-cased');
  t.same(readHeaderBlock(second, false), { streamtype: 'stdout' });
  // the blocks are raw deflate after the 6-byte header: inflating them with no dictionary needed
  // (stored blocks never refer back) gives the name/value bytes
  const raw = zlib.inflateRawSync(Buffer.concat([first.subarray(6), second, Buffer.from([0x03, 0x00])]));
  t.equal(raw.length, 4 + 4 + 10 + 4 + 5 + 4 + 4 + 10 + 4 + 6);
});

t.test('frames: SYN_STREAM and DATA layout, read back across any split', async (t) => {
  const syn = synStreamFrame(3, 0, Buffer.from('hb'));
  t.same([...syn.subarray(0, 8)], [0x80, 0x03, 0x00, FrameType.SynStream, 0x00, 0x00, 0x00, 12]);
  t.equal(syn.readUInt32BE(8), 3);
  const data = dataFrame(5, FLAG_FIN, Buffer.from('abc'));
  t.same([...data.subarray(0, 8)], [0, 0, 0, 5, FLAG_FIN, 0, 0, 3]);
  const all = Buffer.concat([syn, data]);
  for (let cut = 1; cut < all.length; cut++) {
    const r = new SpdyFrameReader();
    const frames = [...r.push(all.subarray(0, cut)), ...r.push(all.subarray(cut))];
    if (frames.length !== 2) t.fail(`split at ${cut}: ${frames.length} frames`);
  }
  const frames = new SpdyFrameReader().push(all);
  t.match(frames[0], { control: true, type: FrameType.SynStream, flags: 0 });
  t.match(frames[1], { control: false, streamId: 5, flags: FLAG_FIN, data: Buffer.from('abc') });
});
