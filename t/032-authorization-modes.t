# kube_authorization_mode as a chain of modes (kube-apiserver's
# --authorization-mode): the first that allows or denies decides, no opinion
# from all is 403 with their reasons; ABAC reads a policy file
# (kube_authorization_policy_file); unsupported or inconsistent modes stop
# nginx at configuration time.
use lib 't/lib';
use Test::Kube;

repeat_each(2);

add_block_preprocessor(sub {
    my $block = shift;
    $block->set_value(no_error_log => "[error]")
        unless defined $block->no_error_log || defined $block->must_die;
});

run_tests();

__DATA__

=== TEST 1: Node is refused at configuration time
--- config
    location / {
        kube_api;
        kube_authorization_mode Node RBAC;
    }
--- must_die
--- error_log
authorization mode "Node" is not supported yet in "kube_authorization_mode" directive



=== TEST 2: Webhook is refused at configuration time
--- config
    location / {
        kube_api;
        kube_authorization_mode RBAC Webhook;
    }
--- must_die
--- error_log
authorization mode "Webhook" is not supported yet in "kube_authorization_mode" directive



=== TEST 3: a mode given twice is refused
--- config
    location / {
        kube_api;
        kube_authorization_mode RBAC RBAC;
    }
--- must_die
--- error_log
authorization mode "RBAC" is given twice in "kube_authorization_mode" directive



=== TEST 4: ABAC needs a policy file
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
    }
--- must_die
--- error_log
authorization mode "ABAC" requires "kube_authorization_policy_file"



=== TEST 5: a policy file needs ABAC
--- user_files
>>> policy.jsonl
{"user": "alice"}
--- config
    kube_authorization_policy_file $TEST_NGINX_HTML_DIR/policy.jsonl;
    location / {
        kube_api;
        kube_authorization_mode RBAC;
    }
--- must_die
--- error_log
"kube_authorization_policy_file" requires authorization mode "ABAC"



=== TEST 6: a bad policy line names the file and the line
--- user_files
>>> bad.jsonl
{"user": "alice"}
# a comment

{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": 7}}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/bad.jsonl;
    }
--- must_die
--- error_log eval
qr{error reading policy file \S+/bad\.jsonl, line 4: \{"apiVersion"}



=== TEST 7: ABAC allows what a versioned policy line grants
--- tls
--- client_cert: alice devs
--- user_files
>>> policy.jsonl
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "default", "resource": "configmaps", "apiGroup": "", "readonly": true}}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/policy.jsonl;
    }
--- request
GET /api/v1/namespaces/default/configmaps
--- response_body_json
{"kind": "ConfigMapList"}



=== TEST 8: ABAC's readonly line does not allow a write; its reason ends the message
--- tls
--- client_cert: alice devs
--- user_files
>>> policy.jsonl
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "default", "resource": "configmaps", "apiGroup": "", "readonly": true}}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/policy.jsonl;
    }
--- request
DELETE /api/v1/namespaces/default/configmaps/x
--- error_code: 403
--- response_body_json
{"kind": "Status", "reason": "Forbidden", "code": 403,
 "message": "configmaps \"x\" is forbidden: User \"alice\" cannot delete resource \"configmaps\" in API group \"\" in the namespace \"default\": No policy matched."}



=== TEST 9: an unversioned line (v0) allows every path and resource to every authenticated user when it names none
--- tls
--- client_cert: bob
--- user_files
>>> legacy.jsonl
{"user": "bob", "readonly": true}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/legacy.jsonl;
    }
--- request
GET /version
--- response_body_json
{"major": "1"}



=== TEST 10: no opinion from every mode: the reasons are joined, one a line
--- tls
--- client_cert: carol
--- user_files
>>> policy.jsonl
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "nonResourcePath": "*"}}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC RBAC AlwaysDeny;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/policy.jsonl;
    }
--- request
GET /metrics
--- error_code: 403
--- response_body_json
{"message": "forbidden: User \"carol\" cannot get path \"/metrics\": No policy matched.\nEverything is forbidden.",
 "details": {}}



=== TEST 11: a later mode allows what an earlier one has no opinion on
--- tls
--- client_cert: carol
--- user_files
>>> policy.jsonl
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "nonResourcePath": "*"}}
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC RBAC AlwaysAllow;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/policy.jsonl;
    }
--- request
GET /api/v1/namespaces/default
--- response_body_json
{"kind": "Namespace"}



=== TEST 12: the modes are inherited from the server level; system:masters passes AlwaysDeny as in kube
--- tls
--- config
    kube_authorization_mode AlwaysDeny;
    location / {
        kube_api;
    }
--- request
GET /api/v1/namespaces/default
--- response_body_json
{"kind": "Namespace"}



=== TEST 13: AlwaysDeny's rules review lists nothing, and says it is complete
--- tls
--- config
    location / {
        kube_api;
        kube_authorization_mode AlwaysDeny;
    }
--- request
POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews
{"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1", "spec": {"namespace": "default"}}
--- error_code: 201
--- response_body_json
{"status": {"resourceRules": [], "nonResourceRules": [], "incomplete": false}}



=== TEST 14: AlwaysAllow's rules review is everything
--- tls
--- config
    location / {
        kube_api;
    }
--- request
POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews
{"kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1", "spec": {"namespace": "default"}}
--- error_code: 201
--- response_body_json
{"status": {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
            "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}], "incomplete": false}}



=== TEST 15: a missing policy file stops nginx with the OS's reason
--- config
    location / {
        kube_api;
        kube_authorization_mode ABAC;
        kube_authorization_policy_file $TEST_NGINX_HTML_DIR/missing.jsonl;
    }
--- must_die
--- error_log eval
qr{open \S+/missing\.jsonl: No such file or directory}
