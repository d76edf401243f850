// Runs a Python program under MicroPython (WebAssembly) with the firmware's files on its filesystem.
// usage: node run.mjs REPO_ROOT PROGRAM.py   (exit code 0 when the program ran without exception)
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const [root, program] = process.argv.slice(2);
const mp = await loadMicroPython({ stdout: (t) => process.stdout.write(t + "\n") });
for (const dir of ["/hardware", "/hardware/firmware"]) mp.FS.mkdir(dir);
mp.FS.writeFile("/hardware/__init__.py", "");
for (const name of readdirSync(join(root, "hardware", "firmware"))) {
  if (name.endsWith(".py")) {
    mp.FS.writeFile("/hardware/firmware/" + name, readFileSync(join(root, "hardware", "firmware", name)));
  }
}
mp.FS.writeFile("/protocol_vectors.json", readFileSync(join(root, "hardware", "protocol_vectors.json")));
try {
  mp.runPython("import sys\nsys.path.insert(0, '/')\n" + readFileSync(program, "utf8"));
} catch (err) {
  process.stdout.write(String(err.message || err) + "\n");
  process.exit(1);
}
