// Reads an MCAP file with @mcap/core's indexed reader and prints {"statistics":N,"topics":{topic:count},...}:
// also the channels without a schema, the chunks without message indexes, the metadata record names and
// the rosbag2 record's serialized_metadata.
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
  const noSchema = [];
  for (const c of reader.channelsById.values()) {
    const s = reader.schemasById.get(c.schemaId);
    if (c.schemaId === 0 || !s || s.data.length === 0) noSchema.push(c.topic);
  }
  const unindexed = reader.chunkIndexes.filter((ci) => ci.messageIndexOffsets.size === 0).length;
  const metadata = reader.metadataIndexes.map((m) => m.name);
  let rosbag2 = null;
  for await (const m of reader.readMetadata({ name: "rosbag2" })) rosbag2 = m.metadata.get("serialized_metadata");
  const qosMissing = [...reader.channelsById.values()].filter((c) => !c.metadata.get("offered_qos_profiles")).map((c) => c.topic);
  console.log(JSON.stringify({ profile: reader.header.profile, statistics: stats, topics,
    chunks: reader.chunkIndexes.length, unindexed, noSchema, qosMissing, metadata, rosbag2 }));
  await fd.close();
}
main().catch((e) => {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
