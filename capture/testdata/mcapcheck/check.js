// Reads an MCAP file with @mcap/core's indexed reader and prints {"statistics":N,"topics":{topic:count}}.
// Used by capture/mcapfile's TestNodeReaderAgrees as a reader independent of the Go library.
"use strict";
const fs = require("fs");
const { McapIndexedReader } = require("@mcap/core");

async function main() {
  const fd = await fs.promises.open(process.argv[2], "r");
  const size = (await fd.stat()).size;
  const readable = {
    size: async () => BigInt(size),
    read: async (offset, length) => {
      const buf = Buffer.alloc(Number(length));
      await fd.read(buf, 0, Number(length), Number(offset));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    },
  };
  const reader = await McapIndexedReader.Initialize({ readable });
  const topics = {};
  const byId = new Map([...reader.channelsById].map(([id, c]) => [id, c.topic]));
  for await (const m of reader.readMessages()) {
    const t = byId.get(m.channelId);
    topics[t] = (topics[t] || 0) + 1;
  }
  const stats = reader.statistics ? Number(reader.statistics.messageCount) : -1;
  console.log(JSON.stringify({ profile: reader.header.profile, statistics: stats, topics }));
  await fd.close();
}
main().catch((e) => {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
