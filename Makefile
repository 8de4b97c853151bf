# nginx-kube-apiserver
#
#   make            install missing Debian packages, build the module
#   make run        start nginx with conf/nginx.conf on 127.0.0.1:$(PORT) (TLS, h2)
#   make test       unit tests (t/unit) and every t/*.t with prove
#   make bench      wrk figures (bench/run)
#
# SANITIZE=1 builds everything with ASan/UBSan into build/sanitize/.

SHELL := /bin/bash
PORT ?= 6443
SANITIZE ?=

ifeq ($(SANITIZE),1)
BUILD := build/sanitize
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD := build
SAN_FLAGS :=
endif

CXX := g++
CXXFLAGS := -std=c++20 -O2 -g -fPIC -Wall -Wextra -Werror -Isrc -I$(BUILD)/gen $(SAN_FLAGS) \
    -MMD -MP
LDLIBS := -llmdb -lcrypto -lyaml -lprotobuf -lcmocka -lpthread

# The schema: protoc turns src/apis/proto/kapi/*.proto into C++ under
# $(BUILD)/gen (never committed), compiled into the library with src/.
PROTO_DIR := src/apis/proto
PROTOS := $(sort $(wildcard $(PROTO_DIR)/kapi/*.proto))
PB_SRCS := $(PROTOS:$(PROTO_DIR)/%.proto=$(BUILD)/gen/%.pb.cc)
PB_HDRS := $(PB_SRCS:.cc=.h)
PB_OBJS := $(PB_SRCS:$(BUILD)/gen/%.cc=$(BUILD)/obj/gen/%.o)
DESC_OBJ := $(BUILD)/obj/gen/kapi_desc.o

SRCS := $(shell find src -name '*.cpp' | sort)
OBJS := $(SRCS:%.cpp=$(BUILD)/obj/%.o)
LIB := $(BUILD)/libkube.a
MODULE_SRCS := $(wildcard module/*.cpp module/*.hpp)
MODULE := $(BUILD)/ngx_http_kube_apiserver_module.so
UNIT_SRCS := $(wildcard t/unit/test_*.cpp)
UNIT_BINS := $(UNIT_SRCS:t/unit/%.cpp=$(BUILD)/unit/%)
UNIT_SUPPORT := $(filter-out $(UNIT_SRCS),$(wildcard t/unit/*.cpp))

# Debian packages the build, the tests and the benchmark need.
PACKAGES := nginx nginx-dev rapidjson-dev libssl-dev libjemalloc-dev libjemalloc2 \
    libcmocka-dev liblmdb-dev lmdb-utils libyaml-dev protobuf-compiler libprotobuf-dev \
    python3-kubernetes python3-protobuf \
    libtest-base-perl libio-socket-ssl-perl wrk curl openssl

.PHONY: all deps run test unit prove bench clean format

all: deps $(MODULE)

deps: build/.deps-ok

build/.deps-ok: Makefile
	@missing=""; for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	    echo "installing:$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -q && apt-get install -y -q $$missing; \
	fi
	@mkdir -p build && touch $@

# One protoc run writes every generated file; the stamp stands for them all.
# Besides the C++, it writes the schema as a descriptor set with its comments
# (kapi.desc), which kapi_desc.S embeds in the library for the OpenAPI
# generator (src/openapi/schema_pool.cpp).
$(BUILD)/gen/.stamp: $(PROTOS) | deps
	@rm -rf $(BUILD)/gen && mkdir -p $(BUILD)/gen
	protoc -I$(PROTO_DIR) --cpp_out=$(BUILD)/gen --descriptor_set_out=$(BUILD)/gen/kapi.desc \
	    --include_imports --include_source_info $(PROTOS)
	@printf '%s\n' '.section .rodata' '.balign 8' \
	    '.globl kube_schema_descriptor_set' '.hidden kube_schema_descriptor_set' \
	    'kube_schema_descriptor_set:' '.incbin "$(CURDIR)/$(BUILD)/gen/kapi.desc"' \
	    '.globl kube_schema_descriptor_set_end' '.hidden kube_schema_descriptor_set_end' \
	    'kube_schema_descriptor_set_end:' '.section .note.GNU-stack,"",@progbits' \
	    > $(BUILD)/gen/kapi_desc.S
	@touch $@

$(PB_SRCS) $(PB_HDRS) $(BUILD)/gen/kapi_desc.S: $(BUILD)/gen/.stamp ;

# Generated headers exist before any object of src/ is compiled (the .d
# files then track which ones each object really includes).
$(OBJS): | $(PB_HDRS)

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.cc | $(PB_HDRS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(DESC_OBJ): $(BUILD)/gen/kapi_desc.S
	@mkdir -p $(dir $@)
	$(CXX) -c $< -o $@

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -c $< -o $@

$(LIB): $(OBJS) $(PB_OBJS) $(DESC_OBJ)
	@rm -f $@
	ar rcs $@ $^

# nginx's own configure, run once on a copy of Debian's nginx-dev tree with
# Debian's flags so the module is binary compatible with /usr/sbin/nginx.
# Re-run when the set of module sources or headers changes.
$(BUILD)/sources.list: FORCE
	@mkdir -p $(BUILD)
	@find module src -name '*.hpp' -o -name '*.cpp' -path 'module/*' | sort > $@.new
	@cmp -s $@.new $@ && rm $@.new || mv $@.new $@

$(BUILD)/nginx-src/objs/Makefile: config $(BUILD)/sources.list | deps
	rm -rf $(BUILD)/nginx-src
	cp -a /usr/share/nginx/src $(BUILD)/nginx-src
	cd $(BUILD)/nginx-src && . ./conf_flags && \
	    KUBE_LIB=$(CURDIR)/$(LIB) KUBE_MODULE_CFLAGS="$(SAN_FLAGS)" \
	    KUBE_MODULE_LDFLAGS="$(SAN_FLAGS)" \
	    ./configure "$${NGX_CONF_FLAGS[@]}" --add-dynamic-module=$(CURDIR) > configure.log

$(MODULE): $(LIB) $(MODULE_SRCS) $(BUILD)/nginx-src/objs/Makefile
	rm -f $(BUILD)/nginx-src/objs/ngx_http_kube_apiserver_module.so
	$(MAKE) -s -C $(BUILD)/nginx-src -f objs/Makefile modules
	@# rename, never overwrite: running nginx processes have the old file mapped
	cp $(BUILD)/nginx-src/objs/ngx_http_kube_apiserver_module.so $@.tmp
	mv -f $@.tmp $@

$(BUILD)/unit/%: t/unit/%.cpp $(UNIT_SUPPORT) $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) -It/unit $< $(UNIT_SUPPORT) $(LIB) $(LDLIBS) -o $@

unit: deps $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

prove: all
	KUBE_BUILD=$(CURDIR)/$(BUILD) SANITIZE=$(SANITIZE) prove -j2 t/*.t

test: all unit prove

run: all
	@PORT=$(PORT) BUILD=$(CURDIR)/$(BUILD) ./conf/run.sh

bench: all $(BUILD)/watch_load $(BUILD)/list_load $(BUILD)/fanout_floor $(BUILD)/patch_scaling
	@BUILD=$(CURDIR)/$(BUILD) ./bench/run

# bench/run's patch case: the three patch types in-process against patch size.
$(BUILD)/patch_scaling: bench/patch_scaling.cpp $(LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $< $(LIB) $(LDLIBS) -o $@

# The watch load client of bench/run: libc and libstdc++ only, nothing of src/.
$(BUILD)/watch_load: bench/watch_load.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -o $@

# bench/run's floor under the watch fan-out: a bare epoll server, no src/.
$(BUILD)/fanout_floor: bench/fanout_floor.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -o $@

# The large-LIST client of bench/run: libc, libstdc++ and zlib (nginx-dev's
# zlib1g-dev), nothing of src/.
$(BUILD)/list_load: bench/list_load.cpp bench/load_common.hpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++20 -O2 -g -Wall -Wextra -Werror $< -lz -lpthread -o $@

format:
	clang-format -i $$(find src module t/unit -name '*.cpp' -o -name '*.hpp')

clean:
	rm -rf build

FORCE:

-include $(OBJS:.o=.d) $(PB_OBJS:.o=.d)
