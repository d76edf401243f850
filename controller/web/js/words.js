// The page's lines in this phone's language: the Pi sends them with the page (#lines), chosen by
// the phone (a cookie) or its browser's languages. tr("{player}, your turn", {player: "Ann"})
// says a line; ntr("{count} wagon", "{count} wagons", n) one that depends on a number. A line the
// catalogue lacks is said in English (docs/translating.md).
const COOKIE = "railtable-language";
const YEAR_S = 365 * 24 * 3600;

const given = document.getElementById("lines");
const words = given ? JSON.parse(given.textContent) : {language: "en", plural: "n!=1", languages: [], lines: {}};

function filled(line, values) {
  return line.replace(/\{(\w+)\}/g, (all, name) => (values && name in values ? String(values[name]) : all));
}

export function tr(line, values) {
  const said = words.lines[line];
  return filled(typeof said === "string" ? said : line, values);
}

export function ntr(singular, plural, count, values) {
  const forms = words.lines[singular];
  const many = words.plural === "n>1" ? count > 1 : count !== 1;
  const line = Array.isArray(forms) ? forms[many ? 1 : 0] : (many ? plural : singular);
  return filled(line, {count, ...values});
}

// "Ann, Bob and Cleo" in this language.
export function listed(items) {
  if (items.length < 2) return items.join("");
  return tr("{first} and {last}", {first: items.slice(0, -1).join(", "), last: items[items.length - 1]});
}

export const language = words.language;

// The chooser: each phone picks its own language, kept (a cookie the Pi reads) across reloads.
export function setUpLanguage(select) {
  select.replaceChildren();
  for (const la of words.languages) {
    const option = document.createElement("option");
    option.value = la.code;
    option.textContent = la.name;
    option.lang = la.code;
    option.selected = la.code === words.language;
    select.appendChild(option);
  }
  select.onchange = () => {
    document.cookie = `${COOKIE}=${select.value}; Max-Age=${YEAR_S}; Path=/; SameSite=Lax`;
    window.location.reload();
  };
}
